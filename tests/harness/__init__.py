"""Tests of the tournament harness."""
