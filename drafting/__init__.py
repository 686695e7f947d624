"""The drafting room: the pipeline that turns a task into a draft, and the deterministic verifier.

Only the verifier lives here so far (``drafting.verify``). It imports ``evidence`` and
``workspace``; it never imports Textual, so every check also runs from the command line and tests.
"""
