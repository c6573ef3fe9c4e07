"""Prodigy: the db-out JSONL reader."""
