"""The drafting room: the pipeline that turns a task into a draft, and the deterministic verifier.

``drafting.pipeline`` runs route, gate, draft, review and verify, each on the backend its role
names (no fallback); ``drafting.runs`` holds the stable types other rooms read (Run, StageRecord,
Choice) and their persistence; ``drafting.verify`` is the verifier. Nothing here imports Textual,
so every step also runs from the command line and tests.
"""
