// The shapes of Go's JSON-decoded types, shared by the decoder (go-decode.ts) and the generated
// model table (wire-models.ts) so neither imports the other.

/** A Go field type: a JSON scalar kind, a named model, or a slice/map of one. */
export type GoType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date-time'
  | 'any'
  | { readonly model: string }
  | { readonly array: GoType }
  | { readonly map: GoType };

/** A model: a struct (fields by JSON name) or a named slice/map/scalar type. */
export type GoModel = { readonly fields: Readonly<Record<string, GoType>> } | { readonly type: GoType };
