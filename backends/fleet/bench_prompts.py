"""Realistic drafting prompts for ``chambers bench``, each one unique.

A benchmark on "hello" measures nothing the attorney does: his prompts are a
record of facts plus an instruction, thousands of tokens long. These are built
from a fictional matter (a commercial lease dispute) and padded to a target
length. Every prompt opens with its own reference line and a shuffled order
of the record, so no two share a prefix and the server's prompt cache cannot
make prefill look faster than it is.
"""

from __future__ import annotations

import random

RECORD = [
    "On March 3, the landlord, Harbor Point Properties LLC, served a notice of default alleging that the tenant, Meridian Bakery Inc., had failed to pay common-area maintenance charges for the months of November through January, totalling $14,212.40, and demanded cure within ten days.",
    "Section 4.2 of the lease provides that common-area maintenance charges shall be reconciled annually and that the tenant may audit the landlord's books on thirty days' written notice; the tenant sent such notice on February 11 and received no response.",
    "In her declaration, the tenant's controller states that the November invoice included $6,480.00 for roof replacement, which Section 7.1 of the lease assigns to the landlord as a capital expense excluded from common-area charges.",
    "The landlord's property manager testified at deposition that the roof work was 'routine maintenance' but conceded that the contractor's invoice described it as a full membrane replacement with a twenty-year warranty.",
    "Section 18.3 of the lease requires that any notice of default specify the provision breached and the amount claimed with reasonable particularity; the March 3 notice referred only to 'unpaid charges under the lease'.",
    "The tenant tendered $7,732.40, the undisputed portion of the charges, by cashier's check on March 10; the landlord rejected the tender and returned the check on March 12, citing its policy against partial payments.",
    "Under the lease's dispute resolution clause, Section 22, either party may demand mediation before commencing litigation, and a party who commences litigation without first demanding mediation may not recover attorney's fees.",
    "The landlord filed an unlawful detainer complaint on March 20 without demanding mediation, and the tenant was served on March 22; the tenant's answer is due within five court days of service.",
    "The tenant has operated at the premises for eleven years, employs twenty-two people, and has made improvements valued at approximately $310,000, including a walk-in freezer and a commercial oven installation.",
    "Email correspondence produced by the landlord shows that its asset manager wrote on February 27 that a national chain had expressed interest in the space 'if Meridian can be moved out before summer'.",
    "The tenant's prior payment history shows every monthly base rent payment made on or before the due date for the past thirty-six months, with no prior notice of default of any kind.",
    "The applicable statute requires that a notice to pay or quit state the amount due with reasonable accuracy, and courts have held that a notice demanding more than is owed may be defective and will not support a judgment for possession.",
]

INSTRUCTION = (
    "Using only the facts in the record above, draft the argument section of the tenant's opposition "
    "to the landlord's motion for summary judgment. Address (1) the defective notice, (2) the improper "
    "inclusion of capital expenses, (3) the rejected tender, and (4) the failure to demand mediation. "
    "Cite the record by paragraph number. Do not invent facts, dates or authorities."
)

CHARS_PER_TOKEN = 4.2  # English legal prose with a BPE tokenizer; only the first guess, then measured


def drafting_prompt(target_tokens: int, seed: int, *, chars_per_token: float = CHARS_PER_TOKEN) -> str:
    """A prompt of roughly ``target_tokens`` tokens, unique to ``seed``."""
    rng = random.Random(seed)
    budget = max(200, int(target_tokens * chars_per_token)) - len(INSTRUCTION) - 80
    head = f"Matter reference BENCH-{seed:08d}-{rng.getrandbits(32):08x}. Record of facts:\n"
    parts: list[str] = []
    size, n = 0, 1
    while size < budget:
        order = RECORD[:]
        rng.shuffle(order)
        for fact in order:
            line = f"{n}. {fact}\n"
            parts.append(line)
            size += len(line)
            n += 1
            if size >= budget:
                break
    return head + "".join(parts) + "\n" + INSTRUCTION
