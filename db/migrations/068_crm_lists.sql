-- CRM list reads at size (docs/families/crm.md, Performance).
-- listDeals' per-currency totals over every matching deal: an index-only scan (the table vacuumed) of one status,
-- grouped by currency then stage, instead of reading every row of the deals it sums.
CREATE INDEX crm_deals_totals ON crm_deals (org_id, status, currency, stage) INCLUDE (amount_cents);
-- listDeals' page of one status by close date: crm_deals_listed walks every closed deal (their close dates come first)
-- to reach the open ones, 0.4 s at 40k closed deals; this one starts at the status.
CREATE INDEX crm_deals_status_close ON crm_deals (org_id, status, close_date, deal_id);
-- The directory's search over organisations alone (crm.listAccounts q, through searchPartiesByKind): its kind filter
-- is met inside these indexes, before any row is read or ranked, so an organisation's name, which every employee's
-- row also holds (employer_name, weight C), and near spellings of it among persons' names, cost nothing.
CREATE INDEX directory_parties_org_search_doc ON directory_parties USING gin (org_id, search_doc) WHERE kind = 'org';
CREATE INDEX directory_parties_org_search_stem ON directory_parties USING gin (org_id, search_stem) WHERE kind = 'org';
CREATE INDEX directory_parties_org_search_fuzzy ON directory_parties USING gin (org_id, search_fuzzy gin_trgm_ops) WHERE kind = 'org';
