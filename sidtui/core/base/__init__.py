"""Shared ground: errors, the JSON.parse-exact parser and JSON.stringify, the home layout."""
