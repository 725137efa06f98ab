"""Vectors: embeddings, the chromadb projection and who owns it, hybrid search and similar code."""
