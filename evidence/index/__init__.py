"""A matter's index as the rooms above read it (the verifier, exhibits, corrections).

``store.py`` holds those reads, as plain values; the index itself is written by ``evidence.ingest``.
"""
