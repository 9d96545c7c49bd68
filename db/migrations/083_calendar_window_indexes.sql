-- A window of calendar events by time (domain/calendar/window.ts windowArms), not a scan of the org's every event:
-- calendar.list of a month across 50 calendars read all 13,150 events of the bench's org to rank 3,300 single
-- events by start and count them, and findATime and the feed read the same way. Three partial indexes, one per arm:
-- single events of at most a day by their start cut to milliseconds as a UTC wall clock (the order a page is cut
-- in, so its first 500 are the index's first 500 entries in the window), longer single events by their end, and
-- series by their start.

CREATE INDEX calendar_events_short ON calendar_events (org_id, date_trunc('milliseconds', start_at AT TIME ZONE 'UTC'))
  WHERE rrule IS NULL AND end_at - start_at <= interval '1 day';
CREATE INDEX calendar_events_long ON calendar_events (org_id, end_at) WHERE rrule IS NULL AND end_at - start_at > interval '1 day';
CREATE INDEX calendar_events_series ON calendar_events (org_id, start_at) WHERE rrule IS NOT NULL;
