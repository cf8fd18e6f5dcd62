"""Command-line front ends, one module per subcommand group."""
