; Definitions: @definition.<kind> on the whole node, @name on its name.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

; Type aliases and type variables, part of a module's API (starlette/types.py is nothing else): `type Pair[T] = ...`,
; `Scope: TypeAlias = ...`, `T_co = TypeVar("T_co", covariant=True)`, `UserId = NewType(...)`.
(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type
((module (assignment left: (identifier) @name type: (type (identifier) @alias.kind)) @definition.type)
  (#eq? @alias.kind "TypeAlias"))
((module (assignment left: (identifier) @name right: (call function: (identifier) @alias.kind)) @definition.type)
  (#match? @alias.kind "^(TypeVar|NewType|ParamSpec|TypeVarTuple)$"))

; Module-level constants, by PEP 8's convention (`STRING = StringParamType()`, `MAX: int = 3`): part
; of a module's API as much as its functions. Lower-case module variables are state, not API.
((module (assignment left: (identifier) @name) @definition.const)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
; The package's version, which a release changes.
((module (assignment left: (identifier) @name) @definition.const)
  (#eq? @name "__version__"))

; A CamelCase name given a type expression is an implicit alias (`ASGIApp = Callable[[Scope, Receive, Send], ...]`,
; `Handler = A | B`); after the constants, so that `MAX = A | B` stays one.
((module (assignment left: (identifier) @name right: [(subscript) (binary_operator)]) @definition.type)
  (#match? @name "^_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$"))

; References: calls by name, with the qualifier (`os.path` in `os.path.join()`) when there is one.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call

; Imports, read in full by the Python import reader.
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; `__all__ = [...]` at module level declares the public API.
(module (assignment left: (identifier) @all.name right: [(list) (tuple)] @all.value))
