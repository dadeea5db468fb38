"""Trick Arena's HTTP API: a stateless Flask service over Redis."""
