"""Test support: random kernel generation and differential checking of passes."""
