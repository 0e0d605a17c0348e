"""A/B winners on positive replies (docs/ab-winners.md).

A template's versions share its sends by weight (outreach.spintax.choose_version). Once
versions have enough sends, `rule.judge` compares them on the share of sends that drew a
positive reply (`figures` counts them); a version significantly better than others wins:
its weight is raised and the losers are retired, at once or once a person confirms,
as the template's `ab_mode` says (`decisions`). Each decision is kept (ABDecision).
"""
