package model

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Hand-written JSON for the types of the largest list pages (members and
// spaces): encoding/json spends most of a page's encoding time on
// reflection. AppendJSON writes exactly what encoding/json writes for the
// same value with SetEscapeHTML(false), without the final newline
// (TestAppendJSONMatchesEncodingJSON checks it field by field). A type
// whose fields change must change its AppendJSON too; the test fails
// otherwise.

// JSONAppender is a value that writes its own JSON (rest.WriteJSON uses it).
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// appendString appends s as a JSON string. Plain ASCII (the ids, dates,
// enum values and URLs of these types) is copied as is; anything else goes
// through encoding/json so that escapes and invalid UTF-8 come out the same.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

func appendInt(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) }

// appendList writes a List with items written by item.
func appendList[T any](b []byte, next *Next, count int, items []T, item func([]byte, T) []byte) []byte {
	b = append(b, '{')
	if next != nil {
		b = append(b, `"next":{"page":`...)
		b = appendString(b, next.Page)
		b = append(b, "},"...)
	}
	b = append(b, `"count":`...)
	b = appendInt(b, count)
	b = append(b, `,"items":`...)
	if items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, it := range items {
			if i > 0 {
				b = append(b, ',')
			}
			b = item(b, it)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (u *User) AppendJSON(b []byte) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"object":`...)
	b = appendString(b, u.Object)
	b = append(b, `,"id":`...)
	b = appendString(b, u.ID)
	b = append(b, `,"displayName":`...)
	b = appendString(b, u.DisplayName)
	if u.Email != "" { // as encoding/json's omitempty
		b = append(b, `,"email":`...)
		b = appendString(b, u.Email)
	}
	if u.PhotoURL != nil {
		b = append(b, `,"photoURL":`...)
		b = appendString(b, *u.PhotoURL)
	}
	b = append(b, `,"urls":{"location":`...)
	b = appendString(b, u.Urls.Location)
	return append(b, "}}"...)
}

func (m *Member) AppendJSON(b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"object":`...)
	b = appendString(b, m.Object)
	b = append(b, `,"id":`...)
	b = appendString(b, m.ID)
	b = append(b, `,"role":`...)
	if m.Role == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, string(*m.Role))
	}
	b = append(b, `,"user":`...)
	b = m.User.AppendJSON(b)
	b = append(b, `,"disabled":`...)
	b = appendBool(b, m.Disabled)
	b = append(b, `,"joinedAt":`...)
	b = appendString(b, m.JoinedAt)
	if m.LastSeenAt != nil {
		b = append(b, `,"lastSeenAt":`...)
		b = appendString(b, *m.LastSeenAt)
	}
	b = append(b, `,"sso":`...)
	b = appendBool(b, m.Sso)
	b = append(b, `,"spaces":`...)
	b = appendInt(b, m.Spaces)
	b = append(b, `,"teams":`...)
	b = appendInt(b, m.Teams)
	return append(b, '}')
}

func (l *MemberList) AppendJSON(b []byte) []byte {
	return appendList(b, l.Next, l.Count, l.Items, func(b []byte, m *Member) []byte { return m.AppendJSON(b) })
}

func (s *Space) AppendJSON(b []byte) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"object":`...)
	b = appendString(b, s.Object)
	b = append(b, `,"id":`...)
	b = appendString(b, s.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, s.Type)
	b = append(b, `,"title":`...)
	b = appendString(b, s.Title)
	b = append(b, `,"emoji":`...)
	b = appendString(b, s.Emoji)
	b = append(b, `,"visibility":`...)
	b = appendString(b, string(s.Visibility))
	b = append(b, `,"createdAt":`...)
	b = appendString(b, s.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendString(b, s.UpdatedAt)
	if s.DeletedAt != nil {
		b = append(b, `,"deletedAt":`...)
		b = appendString(b, *s.DeletedAt)
	}
	b = append(b, `,"editMode":`...)
	b = appendString(b, string(s.EditMode))
	b = append(b, `,"organization":`...)
	b = appendString(b, s.Organization)
	if s.Parent != nil {
		b = append(b, `,"parent":`...)
		b = appendString(b, *s.Parent)
	}
	b = append(b, `,"revision":`...)
	b = appendString(b, s.Revision)
	b = append(b, `,"defaultLevel":`...)
	if s.DefaultLevel == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, string(*s.DefaultLevel))
	}
	b = append(b, `,"comments":`...)
	b = appendInt(b, s.Comments)
	b = append(b, `,"changeRequests":`...)
	b = appendInt(b, s.ChangeRequests)
	b = append(b, `,"changeRequestsOpen":`...)
	b = appendInt(b, s.ChangeRequestsOpen)
	b = append(b, `,"changeRequestsDraft":`...)
	b = appendInt(b, s.ChangeRequestsDraft)
	b = append(b, `,"urls":{"location":`...)
	b = appendString(b, s.Urls.Location)
	b = append(b, `,"app":`...)
	b = appendString(b, s.Urls.App)
	if s.Urls.Published != nil {
		b = append(b, `,"published":`...)
		b = appendString(b, *s.Urls.Published)
	}
	if s.Urls.Icon != nil {
		b = append(b, `,"icon":`...)
		b = appendString(b, *s.Urls.Icon)
	}
	p := s.Permissions
	b = append(b, `},"permissions":{"view":`...)
	b = appendBool(b, p.View)
	b = append(b, `,"access":`...)
	b = appendBool(b, p.Access)
	b = append(b, `,"admin":`...)
	b = appendBool(b, p.Admin)
	b = append(b, `,"viewInviteLinks":`...)
	b = appendBool(b, p.ViewInviteLinks)
	b = append(b, `,"edit":`...)
	b = appendBool(b, p.Edit)
	b = append(b, `,"triggerGitSync":`...)
	b = appendBool(b, p.TriggerGitSync)
	b = append(b, `,"comment":`...)
	b = appendBool(b, p.Comment)
	b = append(b, `,"merge":`...)
	b = appendBool(b, p.Merge)
	b = append(b, `,"review":`...)
	b = appendBool(b, p.Review)
	b = append(b, '}')
	if s.GitSync != nil {
		// Rare (spaces with Git Sync) and nested: encoding/json's bytes.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s.GitSync); err == nil {
			b = append(b, `,"gitSync":`...)
			b = append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	return append(b, '}')
}

func (l *SpaceList) AppendJSON(b []byte) []byte {
	return appendList(b, l.Next, l.Count, l.Items, func(b []byte, s *Space) []byte { return s.AppendJSON(b) })
}
