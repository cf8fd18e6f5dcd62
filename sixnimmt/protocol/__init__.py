"""The open bot protocol: external programs as bots (``cmd:COMMAND LINE``)."""
