"""Talking to language models: value types, provider adapters, and reading calls written as text."""
