"""Proposition support: does the cited page say what the draft cites it for.

Each citation is paired with its claim (the text it is offered for) and its passage (the cited
page with a paragraph either side, the Bates page, the deposition lines); a deterministic locator
ranks every paragraph of the cited opinion against the claim and warns when the best support is
clearly on another page. It never blocks: a paraphrase is not an error.
"""
