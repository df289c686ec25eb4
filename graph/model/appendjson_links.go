package model

import (
	"bytes"
	"encoding/json"
)

// Link lists and backlinks repeat the same objects in every location: the
// organization, the space, the version (a whole revision) and the pages
// that link. encoding/json would encode each occurrence again; these
// encoders encode each shared object once per answer and copy its bytes
// (TestLinkListAppendJSONMatchesEncodingJSON checks the output is the same).

// sharedJSON remembers the JSON of objects by pointer for one answer.
type sharedJSON map[any][]byte

// appendValue appends v's JSON (as encoding/json with SetEscapeHTML(false)),
// encoding a pointer seen before only once.
func (s sharedJSON) appendValue(b []byte, v any) []byte {
	if raw, ok := s[v]; ok {
		return append(b, raw...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// The model types always encode; keep encoding/json's answer shape.
		return append(b, "null"...)
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	s[v] = raw
	return append(b, raw...)
}

func (s sharedJSON) appendLocation(b []byte, l *ContentLocation) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"kind":`...)
	b = appendString(b, l.Kind)
	if l.Organization != nil {
		b = append(b, `,"organization":`...)
		b = s.appendValue(b, l.Organization)
	}
	if l.Space != nil {
		b = append(b, `,"space":`...)
		b = s.appendValue(b, l.Space)
	}
	if l.VersionContext != nil {
		b = append(b, `,"versionContext":`...)
		b = s.appendValue(b, l.VersionContext)
	}
	if l.Page != nil {
		b = append(b, `,"page":`...)
		b = s.appendValue(b, l.Page)
	}
	if l.File != nil {
		b = append(b, `,"file":`...)
		b = s.appendValue(b, l.File)
	}
	if l.Collection != nil {
		b = append(b, `,"collection":`...)
		b = s.appendValue(b, l.Collection)
	}
	if l.URL != nil {
		b = append(b, `,"url":`...)
		b = appendString(b, *l.URL)
	}
	return append(b, '}')
}

func (s sharedJSON) appendUsage(b []byte, u *ContentReferenceUsage) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"status":`...)
	b = appendString(b, string(u.Status))
	b = append(b, `,"relation":`...)
	b = appendString(b, u.Relation)
	if u.TargetReference != nil {
		b = append(b, `,"targetReference":`...)
		b = s.appendLocation(b, u.TargetReference)
	}
	b = append(b, `,"locationReferences":`...)
	if u.LocationReferences == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range u.LocationReferences {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.appendLocation(b, l)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (l *LinkList) AppendJSON(b []byte) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	s := sharedJSON{}
	b = appendList(b, l.Next, l.Count, l.Items, s.appendUsage)
	// appendList closed the object: reopen it for stats.
	b = append(b[:len(b)-1], `,"stats":`...)
	b = s.appendValue(b, &l.Stats)
	return append(b, '}')
}

func (l *ContentLocationList) AppendJSON(b []byte) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	return appendList(b, l.Next, l.Count, l.Items, sharedJSON{}.appendLocation)
}
