# Every target runs with the project's Node (>= 22; Node 24 installed into .tools/ when the system
# Node is older) first on PATH, so `make` works the same on a fresh machine and in CI.
SHELL := /bin/bash
NODE_BIN := $(CURDIR)/.tools/node/bin
export PATH := $(NODE_BIN):$(PATH)
IMG ?= quay.io/agent-install/agent-install-operator:latest
NODE_STAMP := $(NODE_BIN)/node
DEPS_STAMP := node_modules/.package-lock.json

.PHONY: demo system-deps setup build test test-unit test-integration lint typecheck generate generate-check run dev \
	controlplane bundle-validate image-smoke docker-build deploy undeploy bench bench-abuse bench-scale bench-scale-smoke bench-failover coverage ci clean

$(NODE_STAMP):
	bash hack/setup-node.sh >/dev/null

$(DEPS_STAMP): package.json package-lock.json | $(NODE_STAMP)
	npm ci --no-audit --no-fund
	@touch $@

## setup: install Node (if needed) and npm dependencies
setup: $(DEPS_STAMP)

## system-deps: Debian packages the tests use (xorriso for test ISO images)
system-deps:
	bash hack/install-system-deps.sh

## controlplane: build (or reuse cached) kube-apiserver, etcd and kube-controller-manager
controlplane:
	bash hack/build-controlplane.sh

## build: compile TypeScript to dist/
build: setup
	npm run build

## run: run the operator against $$KUBECONFIG, or a local control plane when none is set
run: setup
	node src/cmd/dev.ts

## demo: local control plane + operator + simulated hosts; installs the sample SNO and 3+2 clusters
demo: setup system-deps controlplane
	node src/cmd/demo.ts

## test: unit tests, then integration/e2e tests against a real kube-apiserver + etcd
test: setup system-deps controlplane
	npm test

test-unit: setup system-deps
	npm run test:unit

test-integration: setup system-deps controlplane
	npm run test:integration

coverage: setup
	npm run coverage

lint: setup
	npm run lint
	node hack/check-layers.ts

typecheck: setup
	npm run typecheck

## generate: CRDs (config/crd), RBAC (config/rbac), the OLM bundle (bundle/, bundle.Dockerfile) and reference docs
generate: setup
	npm run generate

## generate-check: fail when committed CRDs, RBAC, bundle or reference docs differ from what the generators write
generate-check: setup
	npm run generate:check

## bundle-validate: check bundle/ with the operator-framework's validators (operator-framework/api, built once and cached)
bundle-validate:
	@bin=$$(bash hack/build-bundle-validate.sh) && "$$bin" bundle

bench: setup
	npm run bench

## bench-abuse: the REST server's peak RSS under 100 concurrent maximum-size step replies, uploads, downloads
bench-abuse: setup
	node bench/abuse.ts

## bench-scale: operator on a local control plane, M SNO clusters and N REST-played hosts (ARGS='--clusters 1000 --hosts 1000')
bench-scale: setup system-deps controlplane
	npm run bench:scale -- $(ARGS)

## bench-scale-smoke: bench-scale at 100 clusters of 3 hosts with 15 s idle, event and connectivity windows, then 30 ZTP sites with a 1 s image cool-down (CI; fails only if a run breaks)
bench-scale-smoke: setup system-deps controlplane
	npm run bench:scale -- --hosts 300 --idle-hosts-seconds 15 --event-status-seconds 15 --connectivity-seconds 15
	BMAC_IMAGE_COOLDOWN_MS=1000 npm run bench:scale -- --ztp --clusters 30 --idle-hosts-seconds 5 \
		--event-status-seconds 5 --fleet-process-seconds 5 --iso-mib 0 --out .local/bench-scale-ztp.json

## bench-failover: two operator processes, N REST-played hosts, SIGKILL of the leader mid-wave (ARGS='--hosts 300')
bench-failover: setup controlplane
	npm run bench:failover -- $(ARGS)

## ci: everything CI runs (see .ci/run)
ci: lint typecheck generate-check bundle-validate test bench-scale-smoke coverage image-smoke

docker-build:
	docker build -t $(IMG) .

## image-smoke: the Dockerfile's stages built without a container engine, its entrypoint run
## against a local control plane until it serves a discovery ISO (hack/image-smoke.ts)
image-smoke: setup system-deps controlplane
	node hack/image-smoke.ts

## deploy: apply CRDs, RBAC and the operator Deployment to the cluster in $$KUBECONFIG
deploy: setup
	node hack/deploy.ts apply

undeploy: setup
	node hack/deploy.ts delete

clean:
	rm -rf dist coverage .tools node_modules
