; Ruby. `class A::B` is split by the extractor into scope `A` and name `B`; `def self.m` is `m`
; of the class it is defined in.
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
(assignment left: (constant) @name) @definition.const

; References: `f(x)`, `obj.m`, `Mod::Const.m`, `ready?`. A bare identifier may be a local variable: the extractor
; decides by the method's bindings (indexer/parsing/rubynames.py).
(call receiver: (_) @qualifier method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call
; The operators a class may define, called on their left operand: `csv << row`, `a == b`, `table[0]` (the extractor
; names it `[]`, and `[]=` where it is assigned to: indexer/parsing/rubyfields.py).
(binary
  left: (_) @qualifier
  operator: _ @name
  right: (_)
  (#any-of? @name "<<" ">>" "==" "===" "=~" "<=>" "<" ">" "<=" ">=" "+" "-" "*" "/" "%" "**" "|" "&" "^")) @reference.call
(element_reference object: (_) @qualifier "[" @name) @reference.call

; Imports: require, require_relative, load, autoload.
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string (string_content) @import.module))
  (#any-of? @_require "require" "require_relative" "load")) @import
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (call receiver: (constant) @_file) @import.path .)
  (#any-of? @_require "require" "load")
  (#eq? @_file "File")) @import
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (_) . (string (string_content) @import.module))
  (#eq? @_require "autoload")) @import
