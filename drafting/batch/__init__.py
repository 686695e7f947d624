"""Batches: a table of similar drafting jobs (one per row of a CSV or JSONL), run on the servers' parallel slots.

``table`` reads the rows and renders each row's instructions from a template; ``schema`` and ``store``
keep the queue durably beside the runs (each job is a normal pipeline run, linked to its batch and
row); ``runner`` keeps as many jobs in flight per server as it has slots; ``presence`` says whether
the workstation is open (one slot of each server is then left to the attorney); ``plan`` reads what
batching measurably gained on each server; ``export`` writes the accepted drafts.
"""
