"""One module per CLI command; specgen.cli registers them."""
