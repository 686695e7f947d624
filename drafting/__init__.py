"""The drafting room: the pipeline that turns a task into a draft, and the deterministic verifier.

``drafting.pipeline`` walks a run's plan of route, gate, draft, review and verify, each on the
backend its role names (no fallback); ``drafting.stages`` has one module per stage (what it sends,
its JSON schema, its typed result); ``drafting.attempt`` runs one attempt at one stage, off the
event loop for every write; ``drafting.context`` chooses the drafter's evidence for a run and for
its preview alike; ``drafting.runs`` holds the stable types other rooms read (Run, StageRecord,
Choice) and their persistence; ``drafting.verify`` is the verifier. Nothing here imports Textual,
so every step also runs from the command line and tests.
"""
