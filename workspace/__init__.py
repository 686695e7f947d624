"""Where chambers keeps things: paths, the config, the database and the audit trail.

This room imports only the standard library and small libraries, never Textual,
so every capability works from the command line and from tests.
"""
