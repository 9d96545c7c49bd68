-- The AI gateway answers for every family's registered answerer (books.ask, crm.ask, email.summarise, …), so
-- each audit record names the method it answered: in the hashed record (its `method` field) and in this
-- column, which /cost.rollup groups by and verify checks against the record. Records written before every
-- answer named its method were all books.ask.
ALTER TABLE ai_audit ADD COLUMN method text NOT NULL DEFAULT 'books.ask';
