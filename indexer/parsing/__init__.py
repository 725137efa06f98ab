"""Parsing and extraction: tree-sitter, the languages' rules, symbols, imports, calls, docs, hashes."""
