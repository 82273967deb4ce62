// bundle-validate checks an OLM bundle directory (manifests/ + metadata/) with the operator-framework's
// own validators, the ones `operator-sdk bundle validate` runs, without needing operator-sdk, a
// container runtime or network access.
//
// Usage: bundle-validate [-k8s-version 1.35] [bundle-dir]
//
// Every finding is printed, one per line, as "ERROR"/"WARN", the validator that raised it and the
// message. The exit code is 0 when no validator reported an error (warnings are allowed), 1 when at
// least one did, and 2 when the directory could not be loaded as a bundle at all.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	valerrors "github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	"sigs.k8s.io/yaml"
)

// Validators that work on the files alone. Left out on purpose: MultipleArchitecturesValidator (pulls
// the images to inspect their manifests), CommunityOperatorValidator (deprecated; wants an index image
// path) and PackageManifestValidator (the legacy package-manifest format, not a bundle).
var suites = []struct {
	name       string
	validators interfaces.Validators
}{
	{"default", validation.DefaultBundleValidators},
	{"operatorhub", interfaces.Validators{validation.OperatorHubV2Validator}},
	{"capabilities", interfaces.Validators{validation.StandardCapabilitiesValidator}},
	{"categories", interfaces.Validators{validation.StandardCategoriesValidator}},
	{"good-practices", interfaces.Validators{validation.GoodPracticesValidator}},
	{"deprecated-apis", interfaces.Validators{validation.AlphaDeprecatedAPIsValidator}},
	{"objects", interfaces.Validators{validation.ObjectValidator}},
}

var knownInstallModes = map[v1alpha1.InstallModeType]bool{
	v1alpha1.InstallModeTypeOwnNamespace:    true,
	v1alpha1.InstallModeTypeSingleNamespace: true,
	v1alpha1.InstallModeTypeMultiNamespace:  true,
	v1alpha1.InstallModeTypeAllNamespaces:   true,
}

type finding struct {
	level, suite, name, text string
}

func main() {
	k8sVersion := flag.String("k8s-version", "",
		"Kubernetes version to check removed APIs against (default: the CSV's minKubeVersion)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [-k8s-version X.Y] [bundle-dir]\n", filepath.Base(os.Args[0]))
		flag.PrintDefaults()
	}
	flag.Parse()
	dir := "bundle"
	switch flag.NArg() {
	case 0:
	case 1:
		dir = flag.Arg(0)
	default:
		flag.Usage()
		os.Exit(2)
	}

	// The loader skips every directory whose name starts with a dot, "." included: hand it a full path.
	abs, err := filepath.Abs(dir)
	if err == nil {
		_, err = os.Stat(filepath.Join(abs, "manifests"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bundle-validate: %s has no manifests/ directory: %v\n", dir, err)
		os.Exit(2)
	}
	bundle, err := manifests.GetBundleFromDir(abs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bundle-validate: %s is not a loadable bundle:\n  %s\n", dir,
			strings.ReplaceAll(err.Error(), "\n", "\n  "))
		os.Exit(2)
	}

	var findings []finding
	findings = append(findings, loaderChecks(dir, bundle)...)
	objs := bundle.ObjectsToValidate()
	if *k8sVersion != "" {
		objs = append(objs, map[string]string{"k8s-version": *k8sVersion})
	}
	for _, s := range suites {
		for _, r := range s.validators.Validate(objs...) {
			for _, e := range r.Errors {
				findings = append(findings, finding{"ERROR", s.name, r.Name, message(e, bundle.Name)})
			}
			for _, w := range r.Warnings {
				findings = append(findings, finding{"WARN", s.name, r.Name, message(w, bundle.Name)})
			}
		}
	}

	sort.SliceStable(findings, func(i, j int) bool { return findings[i].level < findings[j].level })
	errs, warns := 0, 0
	for _, f := range findings {
		if f.level == "ERROR" {
			errs++
		} else {
			warns++
		}
		name := f.name
		if name == "" {
			name = "-"
		}
		fmt.Printf("%-5s [%s] %s: %s\n", f.level, f.suite, name, f.text)
	}
	fmt.Printf("bundle-validate: %s (%s, package %q, channels %s): %d error(s), %d warning(s)\n",
		dir, bundle.Name, bundle.Package, strings.Join(bundle.Channels, ","), errs, warns)
	if errs > 0 {
		os.Exit(1)
	}
}

// message renders a finding as "detail (field F, value V)", leaving out the parts that are empty or
// just repeat the bundle's name, which is printed in front of every line anyway.
func message(e valerrors.Error, bundleName string) string {
	var extra []string
	if e.Field != "" {
		extra = append(extra, "field "+e.Field)
	}
	if v := fmt.Sprint(e.BadValue); e.BadValue != nil && v != "" && v != bundleName {
		extra = append(extra, "value "+v)
	}
	text := strings.TrimPrefix(e.Detail, "("+bundleName+") ")
	if text == "" {
		text = string(e.Type)
	}
	if len(extra) > 0 {
		text += " (" + strings.Join(extra, ", ") + ")"
	}
	return text
}

// loaderChecks covers what the library accepts silently: a bundle without package or channel
// annotations, CSV fields it does not know (the typed decode simply drops them, so a misspelt field
// would otherwise pass every validator) and install modes OLM does not define.
func loaderChecks(dir string, bundle *manifests.Bundle) []finding {
	var out []finding
	add := func(text string) { out = append(out, finding{"ERROR", "loader", bundle.Name, text}) }
	if bundle.Package == "" {
		add("metadata/annotations.yaml sets no operators.operatorframework.io.bundle.package.v1")
	}
	if len(bundle.Channels) == 0 || bundle.Channels[0] == "" {
		add("metadata/annotations.yaml sets no operators.operatorframework.io.bundle.channels.v1")
	}
	if bundle.CSV != nil {
		for _, m := range bundle.CSV.Spec.InstallModes {
			if !knownInstallModes[m.Type] {
				add(fmt.Sprintf("spec.installModes: unknown type %q", m.Type))
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "manifests", "*.clusterserviceversion.yaml"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			add(err.Error())
			continue
		}
		var csv v1alpha1.ClusterServiceVersion
		if err := yaml.UnmarshalStrict(raw, &csv); err != nil {
			add(fmt.Sprintf("%s: %v", filepath.Base(f), err))
		}
	}
	return out
}
