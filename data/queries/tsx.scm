; inherits: typescript
; JSX: a capitalised element is a component, used like a call.
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
