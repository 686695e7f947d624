"""The drafting room: the pipeline that turns a task into a draft, and the deterministic verifier.

The verifier is ``drafting.verify``. The room imports ``evidence``, ``backends`` and ``workspace``;
it never imports Textual, so everything here also runs from the command line and tests.
"""
