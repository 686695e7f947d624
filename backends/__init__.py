"""The only code that talks to model servers and reads GPU telemetry.

Everything here is headless: no Textual. Callers get typed events and typed
errors with plain-words messages; nothing here falls back to another server.
"""
