package model

import "io"

// Comment is a comment on a space or a change request.
type Comment struct {
	Object      string             `json:"object"`
	ID          string             `json:"id"`
	PostedBy    *User              `json:"postedBy"`
	PostedAt    string             `json:"postedAt"`
	EditedAt    *string            `json:"editedAt,omitempty"`
	Reactions   []*EmojiReaction   `json:"reactions"`
	Replies     int                `json:"replies"`
	Body        *CommentBody       `json:"body"`
	Target      *CommentTarget     `json:"target"`
	Urls        CommentURLs        `json:"urls"`
	Permissions CommentPermissions `json:"permissions"`
	Status      CommentStatus      `json:"status"`
	ResolvedAt  *string            `json:"resolvedAt,omitempty"`
	ResolvedBy  *User              `json:"resolvedBy,omitempty"`
}

// CommentReply is a reply in a comment's thread.
type CommentReply struct {
	Object      string             `json:"object"`
	ID          string             `json:"id"`
	PostedBy    *User              `json:"postedBy"`
	PostedAt    string             `json:"postedAt"`
	EditedAt    *string            `json:"editedAt,omitempty"`
	Reactions   []*EmojiReaction   `json:"reactions"`
	Body        *CommentBody       `json:"body"`
	Urls        CommentURLs        `json:"urls"`
	Permissions CommentPermissions `json:"permissions"`
}

// CommentBody is a Document: {markdown} or {document}.
type CommentBody struct {
	Markdown *string `json:"markdown,omitempty"`
	Document any     `json:"document,omitempty"`
}

type CommentTarget struct {
	Node          *CommentNode       `json:"node,omitempty"`
	TableCell     *TableCellTarget   `json:"tableCell,omitempty"`
	ChangeRequest *string            `json:"changeRequest,omitempty"`
	Page          *CommentPageTarget `json:"page,omitempty"`
	Space         string             `json:"space"`
	Revision      string             `json:"revision"`
}

type CommentNode struct {
	ID      string  `json:"id"`
	Preview *string `json:"preview,omitempty"`
}

type TableCellTarget struct {
	Record     string `json:"record"`
	Definition string `json:"definition"`
}

// CommentPageTarget is the page a comment is about; outdated when the page
// is no longer in the content the comment belongs to.
type CommentPageTarget struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Emoji     *string `json:"emoji,omitempty"`
	Icon      *string `json:"icon,omitempty"`
	CreatedAt *string `json:"createdAt,omitempty"`
	UpdatedAt *string `json:"updatedAt,omitempty"`
	Path      string  `json:"path"`
	Outdated  bool    `json:"outdated"`
}

type CommentURLs struct {
	Location string `json:"location"`
}

type CommentPermissions struct {
	View   bool `json:"view"`
	Edit   bool `json:"edit"`
	Reply  bool `json:"reply"`
	React  bool `json:"react"` // required by 0.130.0: the COMMENT role, as for replies
	Delete bool `json:"delete"`
}

type EmojiReaction struct {
	Emoji string               `json:"emoji"`
	Count int                  `json:"count"`
	Users []*EmojiReactionUser `json:"users"`
}

type EmojiReactionUser struct {
	User      *User  `json:"user"`
	ReactedAt string `json:"reactedAt"`
}

type CommentList List[*Comment]
type CommentReplyList List[*CommentReply]

// CommentBodyInput is a Document: {markdown}, {document} or {} (empty).
type CommentBodyInput struct {
	Markdown *string        `json:"markdown"`
	Document map[string]any `json:"document"`
}

type TableCellInput struct {
	Record     string `json:"record"`
	Definition string `json:"definition"`
}

type PostCommentInput struct {
	Node      *string           `json:"node"`
	Page      *string           `json:"page"`
	Body      *CommentBodyInput `json:"body"`
	TableCell *TableCellInput   `json:"tableCell"`
}

type PostCommentReplyInput struct {
	Body *CommentBodyInput `json:"body"`
}

// UpdateCommentInput changes a comment or a reply; resolved on a reply
// (change-request level) resolves its thread.
type UpdateCommentInput struct {
	Resolved         *bool             `json:"resolved"`
	Body             *CommentBodyInput `json:"body"`
	AddedReactions   []string          `json:"addedReactions"`
	RemovedReactions []string          `json:"removedReactions"`
}

// CommentStatus is a comment's state.
type CommentStatus string

var CommentStatuses = newEnum[CommentStatus]("open", "resolved")

func (v CommentStatus) MarshalGQL(w io.Writer)     { CommentStatuses.marshal(w, v) }
func (v *CommentStatus) UnmarshalGQL(in any) error { return CommentStatuses.unmarshal(in, v) }
func (v CommentStatus) IsValid() bool              { return CommentStatuses.valid[v] }

// CommentStatusFilter is the status filter of comment lists.
type CommentStatusFilter string

var CommentStatusFilters = newEnum[CommentStatusFilter]("all", "open", "resolved")

func (v CommentStatusFilter) MarshalGQL(w io.Writer) { CommentStatusFilters.marshal(w, v) }
func (v *CommentStatusFilter) UnmarshalGQL(in any) error {
	return CommentStatusFilters.unmarshal(in, v)
}
func (v CommentStatusFilter) IsValid() bool { return CommentStatusFilters.valid[v] }
