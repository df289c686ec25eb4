package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Site insights: renderers track their readers' events (anyone who reads
// the site may, its apiToken included); members with READ aggregate them
// and list the visitor segments. Aggregations are computed over the events
// of the range read back (at most maxAggregatedEvents of them).

const (
	maxTrackedEvents    = 100
	maxAggregatedEvents = 200_000
	maxAggregateRows    = 1000
)

var siteEventTypes = map[string]bool{
	"page_view": true, "search_open": true, "search_type_query": true, "search_open_result": true, "page_post_feedback": true,
	"page_post_feedback_comment": true, "ask_question": true, "ask_rate_response": true, "link_click": true, "api_client_open": true,
	"api_client_request": true, "ad_click": true, "ad_display": true, "trademark_click": true,
}

// trackSiteEvents checks and stores events; a visitor's claims are the
// session's visitorAuthClaims, else those of the apiToken that sends them.
func (r *Resolver) trackSiteEvents(ctx context.Context, orgID, siteID string, events []map[string]any) (bool, error) {
	rd, err := r.siteReaderOf(ctx, orgID, siteID, "tracking site events")
	if err != nil {
		return false, err
	}
	if len(events) == 0 || len(events) > maxTrackedEvents {
		return false, apierr.Invalid("events", "must hold 1 to %d events", maxTrackedEvents)
	}
	var tokenClaims map[string]any
	if c, _ := auth.CallerFrom(ctx); c.Site != nil {
		tokenClaims = c.Site.Claims
	}
	out := make([]storage.SiteEvent, 0, len(events))
	for i, e := range events {
		field := fmt.Sprintf("events[%d]", i)
		typ, _ := e["type"].(string)
		if !siteEventTypes[typ] {
			return false, apierr.Invalid(field+".type", "must be one of the site insights event types (page_view, search_open, ...)")
		}
		session, _ := e["session"].(map[string]any)
		location, _ := e["location"].(map[string]any)
		visitor, _ := session["visitorId"].(string)
		sessionID, _ := session["sessionId"].(string)
		switch {
		case session == nil:
			return false, apierr.Invalid(field+".session", "is required (an object)")
		case visitor == "":
			return false, apierr.Invalid(field+".session.visitorId", "is required")
		case sessionID == "":
			return false, apierr.Invalid(field+".session.sessionId", "is required")
		case location == nil:
			return false, apierr.Invalid(field+".location", "is required (an object)")
		}
		if u, _ := location["url"].(string); u == "" {
			return false, apierr.Invalid(field+".location.url", "is required")
		}
		at := r.Now()
		if ts, ok := e["timestamp"].(string); ok {
			if at, err = time.Parse(time.RFC3339Nano, ts); err != nil {
				return false, apierr.Invalid(field+".timestamp", "must be an RFC 3339 date-time")
			}
		}
		claims, ok := session["visitorAuthClaims"].(map[string]any)
		if !ok {
			claims = tokenClaims
		}
		if claims == nil {
			claims = map[string]any{}
		}
		claimsJSON, _ := json.Marshal(claims)
		eventJSON, _ := json.Marshal(e)
		out = append(out, storage.SiteEvent{SiteID: rd.site.ID, Type: typ, At: at, VisitorID: visitor, SessionID: sessionID,
			PageID: optionalString(location["page"]), SiteSpaceID: optionalString(location["siteSpace"]),
			Claims: string(claimsJSON), Event: string(eventJSON)})
	}
	return true, r.Store.AddSiteEvents(ctx, out)
}

func optionalString(v any) *string {
	if s, ok := v.(string); ok && s != "" {
		return &s
	}
	return nil
}

// eventRow is a stored event with its JSON decoded.
type eventRow struct {
	storage.SiteEvent
	location map[string]any
}

// eventColumn is a column aggregations know: a dimension (value) or a
// count over the events of a group (metric).
type eventColumn struct {
	value  func(e eventRow, interval string) string
	metric func(events []eventRow) int
}

func distinct(events []eventRow, key func(eventRow) string) int {
	seen := map[string]bool{}
	for _, e := range events {
		seen[key(e)] = true
	}
	return len(seen)
}

func locationValue(key string) func(eventRow, string) string {
	return func(e eventRow, _ string) string { s, _ := e.location[key].(string); return s }
}

var eventColumns = map[string]eventColumn{
	"datetime":      {value: func(e eventRow, interval string) string { return truncateTo(e.At, interval).Format(time.RFC3339) }},
	"url":           {value: locationValue("url")},
	"eventType":     {value: func(e eventRow, _ string) string { return e.Type }},
	"siteSection":   {value: locationValue("siteSection")},
	"siteSpace":     {value: locationValue("siteSpace")},
	"siteShareKey":  {value: locationValue("siteShareKey")},
	"page":          {value: locationValue("page")},
	"eventsCount":   {metric: func(es []eventRow) int { return len(es) }},
	"sessionsCount": {metric: func(es []eventRow) int { return distinct(es, func(e eventRow) string { return e.SessionID }) }},
	"visitorsCount": {metric: func(es []eventRow) int { return distinct(es, func(e eventRow) string { return e.VisitorID }) }},
}

func truncateTo(t time.Time, interval string) time.Time {
	t = t.UTC()
	switch interval {
	case "hour":
		return t.Truncate(time.Hour)
	case "week":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -int((d.Weekday()+6)%7)) // Mondays
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// queryColumn is one column of the query: its name and datetime interval.
type queryColumn struct {
	name, interval string
	col            eventColumn
}

func parseColumn(field string, v any) (queryColumn, error) {
	m, _ := v.(map[string]any)
	name, _ := m["column"].(string)
	col, ok := eventColumns[name]
	if !ok {
		return queryColumn{}, apierr.Invalid(field+".column", "must be one of datetime, url, eventType, siteSection, siteSpace, siteShareKey, page, eventsCount, sessionsCount, visitorsCount (the others are not tracked by docsapi)")
	}
	q := queryColumn{name: name, col: col, interval: "day"}
	if iv, ok := m["interval"].(string); ok {
		if iv != "hour" && iv != "day" && iv != "week" && iv != "month" {
			return q, apierr.Invalid(field+".interval", "must be hour, day, week or month")
		}
		q.interval = iv
	}
	return q, nil
}

func parseColumns(field string, v any) ([]queryColumn, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, apierr.Invalid(field, "must be an array of columns")
	}
	out := make([]queryColumn, 0, len(list))
	for i, it := range list {
		c, err := parseColumn(fmt.Sprintf("%s[%d]", field, i), it)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

var rangePresets = map[string]time.Duration{
	"last24Hours": 24 * time.Hour, "last7Days": 7 * 24 * time.Hour, "last30Days": 30 * 24 * time.Hour,
	"last3Months": 91 * 24 * time.Hour, "lastYear": 365 * 24 * time.Hour,
}

func (r *Resolver) parseRange(v any) (from, to time.Time, err error) {
	now := r.Now()
	switch rg := v.(type) {
	case string:
		d, ok := rangePresets[rg]
		if !ok {
			return from, to, apierr.Invalid("range", "must be lastYear, last3Months, last30Days, last7Days, last24Hours or {from, to}")
		}
		return now.Add(-d), now.Add(time.Millisecond), nil
	case map[string]any:
		f, _ := rg["from"].(string)
		t, _ := rg["to"].(string)
		if from, err = time.Parse(time.RFC3339Nano, f); err != nil {
			return from, to, apierr.Invalid("range.from", "must be an RFC 3339 date-time")
		}
		if to, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return from, to, apierr.Invalid("range.to", "must be an RFC 3339 date-time")
		}
		return from, to, nil
	}
	return from, to, apierr.Invalid("range", "is required")
}

// eventFilter keeps the events whose column value is (in) or is not
// (notIn) one of values.
type eventFilter struct {
	col    queryColumn
	values map[string]bool
	in     bool
}

func parseFilters(v any) ([]eventFilter, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, apierr.Invalid("where", "must be an array of filters")
	}
	var out []eventFilter
	for i, it := range list {
		field := fmt.Sprintf("where[%d]", i)
		c, err := parseColumn(field, it)
		if err != nil {
			return nil, err
		}
		if c.col.value == nil {
			return nil, apierr.Invalid(field+".column", "counts cannot be filtered on")
		}
		m := it.(map[string]any)
		f := eventFilter{col: c, values: map[string]bool{}, in: true}
		switch op, _ := m["operator"].(string); op {
		case "", "in":
		case "notIn":
			f.in = false
		default:
			return nil, apierr.Invalid(field+".operator", "must be in or notIn")
		}
		values, _ := m["values"].([]any)
		for _, v := range values {
			f.values[fmt.Sprint(v)] = true
		}
		out = append(out, f)
	}
	return out, nil
}

// aggregateSiteEvents answers a SiteInsightsQueryEventsAggregation: the
// events of the range kept by where, grouped by groupBy, one row per group
// with the select columns (default: the groupBy columns and eventsCount),
// ordered by order (default: the groups' values) and cut at limit.
func (r *Resolver) aggregateSiteEvents(ctx context.Context, orgID, siteID string, q map[string]any) (*model.SiteEventsAggregation, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading site insights"); err != nil {
		return nil, err
	}
	from, to, err := r.parseRange(q["range"])
	if err != nil {
		return nil, err
	}
	groupBy, err := parseColumns("groupBy", q["groupBy"])
	if err != nil {
		return nil, err
	}
	for i, c := range groupBy {
		if c.col.value == nil {
			return nil, apierr.Invalid(fmt.Sprintf("groupBy[%d].column", i), "counts cannot be grouped by")
		}
	}
	sel, err := parseColumns("select", q["select"])
	if err != nil {
		return nil, err
	}
	if len(sel) == 0 {
		sel = append(append(sel, groupBy...), queryColumn{name: "eventsCount", col: eventColumns["eventsCount"]})
	}
	where, err := parseFilters(q["where"])
	if err != nil {
		return nil, err
	}
	limit := maxAggregateRows
	if l, ok := q["limit"].(float64); ok {
		if l < 1 || l > maxAggregateRows || l != float64(int(l)) {
			return nil, apierr.Invalid("limit", "must be a whole number from 1 to %d", maxAggregateRows)
		}
		limit = int(l)
	}
	stored, err := r.Store.SiteEventsBetween(ctx, siteID, from, to, maxAggregatedEvents)
	if err != nil {
		return nil, err
	}
	groups := map[string][]eventRow{}
	var keys []string
	for _, se := range stored {
		var ev struct {
			Location map[string]any `json:"location"`
		}
		json.Unmarshal([]byte(se.Event), &ev)
		e := eventRow{SiteEvent: se, location: ev.Location}
		kept := true
		for _, f := range where {
			kept = kept && f.values[f.col.col.value(e, f.col.interval)] == f.in
		}
		if !kept {
			continue
		}
		parts := make([]string, len(groupBy))
		for i, c := range groupBy {
			parts[i] = c.col.value(e, c.interval)
		}
		k := strings.Join(parts, "\x00")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e)
	}
	cell := func(c queryColumn, events []eventRow) any {
		if c.col.metric != nil {
			return c.col.metric(events)
		}
		return c.col.value(events[0], c.interval)
	}
	sort.Strings(keys)
	if order, ok := q["order"].(map[string]any); ok {
		by, err := parseColumn("order.by", order["by"])
		if err != nil {
			return nil, err
		}
		desc := order["direction"] == "desc"
		sort.SliceStable(keys, func(i, j int) bool {
			a, b := cell(by, groups[keys[i]]), cell(by, groups[keys[j]])
			less := fmt.Sprint(a) < fmt.Sprint(b)
			if x, ok := a.(int); ok {
				less = x < b.(int)
			}
			if desc {
				return !less && fmt.Sprint(a) != fmt.Sprint(b)
			}
			return less
		})
	}
	if len(keys) > limit {
		keys = keys[:limit]
	}
	out := &model.SiteEventsAggregation{Columns: []map[string]any{}}
	for _, c := range sel {
		values := []any{}
		for _, k := range keys {
			values = append(values, cell(c, groups[k]))
		}
		out.Columns = append(out.Columns, map[string]any{"column": c.name, "values": values})
	}
	return out, nil
}

// siteVisitorSegments groups the last year's events by their visitors'
// claims, most events first.
func (r *Resolver) siteVisitorSegments(ctx context.Context, orgID, siteID string) (*model.SiteVisitorSegmentList, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading site insights"); err != nil {
		return nil, err
	}
	now := r.Now()
	stored, err := r.Store.SiteEventsBetween(ctx, siteID, now.Add(-rangePresets["lastYear"]), now.Add(time.Millisecond), maxAggregatedEvents)
	if err != nil {
		return nil, err
	}
	type segment struct {
		events             int
		visitors, sessions map[string]bool
	}
	segments := map[string]*segment{}
	for _, e := range stored {
		s := segments[e.Claims]
		if s == nil {
			s = &segment{visitors: map[string]bool{}, sessions: map[string]bool{}}
			segments[e.Claims] = s
		}
		s.events++
		s.visitors[e.VisitorID], s.sessions[e.SessionID] = true, true
	}
	out := &model.SiteVisitorSegmentList{Items: []*model.SiteVisitorSegment{}}
	for claims, s := range segments {
		m := &model.SiteVisitorSegment{Claims: map[string]any{}, Events: s.events, Visitors: len(s.visitors), Sessions: len(s.sessions), Title: "Visitors without claims"}
		json.Unmarshal([]byte(claims), &m.Claims)
		if len(m.Claims) > 0 {
			m.Title = "Visitors with claims " + claims
		}
		out.Items = append(out.Items, m)
	}
	sort.Slice(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		return a.Events > b.Events || (a.Events == b.Events && a.Title < b.Title)
	})
	out.Count = len(out.Items)
	return out, nil
}
