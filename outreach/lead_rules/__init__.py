"""Lead rules: what happens to a lead the moment it is created (docs/lead-rules.md).

Every creating path calls one door, `lead_created` (one lead: the API, the leads page, Meta
Lead Ads) or `leads_created` (an import's new leads, in a fixed number of queries). The
tenant's enabled rules are tried in order and the first whose conditions all hold takes
the lead (`matching`); its actions run through the services that own them (enrollment:
outreach.sequences), and the firing is recorded for the lead's page (`firing`). Rules are
saved, ordered and previewed by `editing`; their codes are in `reasons`.
"""

from outreach.lead_rules.firing import lead_created, leads_created

__all__ = ["lead_created", "leads_created"]
