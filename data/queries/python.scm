; Definitions: @definition.<kind> on the whole node, @name on its name.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

; Module-level constants, by PEP 8's convention (`STRING = StringParamType()`, `MAX: int = 3`): part
; of a module's API as much as its functions. Lower-case module variables are state, not API.
((module (assignment left: (identifier) @name) @definition.const)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; References: calls by name, with the qualifier (`os.path` in `os.path.join()`) when there is one.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call

; Imports, read in full by the Python import reader.
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; `__all__ = [...]` at module level declares the public API.
(module (assignment left: (identifier) @all.name right: [(list) (tuple)] @all.value))
