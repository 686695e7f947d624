"""Record and guideline cites the verifier does not read, as briefs write them between a case and an Id.

"Trial Tr. vol. II, 428", "U.S.S.G. § 2L1.2", "J.A. 57", "ECF No. 12 at 3", "(R. 45)": each is a
citation, so an "Id." after one stands for it, not for the case cited before it. Reading them as no
citation would send the Id., and a quotation cited to it, to that case, which the quotation is not
from: a true quotation of the record would then be contradicted.
"""

from __future__ import annotations

import re

_UNREAD = re.compile(
    r"(?:\b(?:Trial|Hr[’']g|Sent(?:['’]g|encing|\.)?|Plea|Supp(?:\.|ression)|Resent(?:encing|\.))\s+)?"
    r"\bTr\.\s*(?:vol\.\s*[IVX\d]+,?\s*)?(?:at\s+)?\d"  # transcripts
    r"|\bU\.\s?S\.\s?S\.\s?G\.\s*(?:§|Sec\.|[Ss]ection|App\.)"  # the Sentencing Guidelines
    r"|\b(?:J\.\s?A\.|S\.\s?A\.|Pet\.\s+App\.|ECF\s+No\.|Dkt\.(?:\s+No\.)?|Doc\.\s+No\.)\s*(?:at\s+)?\d"
    r"|(?:(?<=\()|(?<=[.;]\s))R\.\s*(?:at\s+)?\d"  # "(R. 45)", "... fact. R. 45."
)
# What a citation carries after it: a pin, its court and year, its parentheticals ("(citing Tr. 4)").
_TAIL = re.compile(r"\s*(?:,\s*(?:at\s+)?[\d\-–, n.]+)?\s*(?:\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)*")


def unread_cite_between(draft: str, start: int, end: int) -> str:
    """The text of the last unread record or guideline cite in ``draft[start:end]``, past the
    pin and parentheticals of the citation that ends at ``start``; "" where there is none."""
    gap = draft[start:end]
    tail = _TAIL.match(gap)
    begin = tail.end() if tail else 0
    found = list(_UNREAD.finditer(gap, begin))
    if not found:
        return ""
    last = found[-1]
    stop = re.search(r"[();]|[.,](?:\s|$)", gap[last.end() :])  # its own pin, not the sentence it ends
    return gap[last.start() : last.end() + (stop.start() if stop else 0)].strip()
