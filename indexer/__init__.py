"""Turns a tree and its git history into events: parsing/, git/, watching/, vectors/, tied together by run.py."""
