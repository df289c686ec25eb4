package graph

import (
	"context"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/markdown"
	"docsapi/storage"
)

// Comments and replies, on a space or on a change request (the same
// operations under both prefixes).

const (
	maxCommentBody = 64 << 10
	maxEmoji       = 50
	maxReactions   = 20
)

// discussion is where comments are read or posted: a space the caller can
// see, or one of its change requests; revision is that content's current
// revision (the space's active one, or the change request's head).
type discussion struct {
	space    storage.Space
	access   ContentScope
	cr       *storage.ChangeRequest
	key      storage.CommentScope
	revision string
}

func (r *Resolver) discussionOf(ctx context.Context, spaceID string, changeRequestID *string) (discussion, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return discussion{}, err
	}
	d := discussion{space: sp, access: s, key: storage.CommentScope{SpaceID: sp.ID}, revision: sp.RevisionID}
	if changeRequestID != nil {
		cr, err := r.Store.ChangeRequest(ctx, sp.ID, *changeRequestID)
		if err != nil {
			return d, notFoundAs(err, "change request")
		}
		d.cr, d.key.ChangeRequestID, d.revision = &cr, cr.ID, cr.Revision
	}
	return d, s.require("read", "reading comments")
}

func (d discussion) location(commentID string, replyID ...string) string {
	p := "/v1/spaces/" + d.space.ID
	if d.cr != nil {
		p += "/change-requests/" + d.cr.ID
	}
	p += "/comments/" + commentID
	if len(replyID) > 0 {
		p += "/replies/" + replyID[0]
	}
	return p
}

// permissions of the caller on a comment or reply: authors edit and delete
// their own, space admins delete any, COMMENT replies and reacts.
func (d discussion) permissions(c storage.Comment) model.CommentPermissions {
	own := c.PostedBy == d.access.Caller.UserID
	return model.CommentPermissions{View: true, Edit: own, Reply: d.access.Role >= roleRank["comment"],
		React: d.access.Role >= roleRank["comment"], Delete: own || d.access.Role >= roleRank["admin"]}
}

// commentBody validates a body input and returns its Markdown: {markdown},
// {document} (converted to Markdown: blocks become paragraphs, list items
// and code lines, marks are kept as text) or {} (empty).
func commentBody(field string, in *model.CommentBodyInput) (string, error) {
	if in == nil {
		return "", apierr.Invalid(field, "is required ({markdown} or {document})")
	}
	var md string
	switch {
	case in.Markdown != nil && in.Document != nil:
		return "", apierr.Invalid(field, "give one of markdown and document")
	case in.Markdown != nil:
		md = *in.Markdown
	case in.Document != nil:
		if obj, _ := in.Document["object"].(string); obj != "document" {
			return "", apierr.Invalid(field+".document.object", "must be document")
		}
		nodes, ok := in.Document["nodes"].([]any)
		if !ok {
			return "", apierr.Invalid(field+".document.nodes", "must be an array of blocks")
		}
		md = documentMarkdown(nodes)
	}
	if len(md) > maxCommentBody {
		return "", apierr.Invalid(field, "must be at most %d bytes", maxCommentBody)
	}
	return md, nil
}

// documentMarkdown writes the text of JSON document blocks as Markdown.
func documentMarkdown(nodes []any) string {
	var blocks []string
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		typ, _ := m["type"].(string)
		children, _ := m["nodes"].([]any)
		switch {
		case strings.HasPrefix(typ, "heading-"):
			blocks = append(blocks, strings.Repeat("#", int(typ[len(typ)-1]-'0'))+" "+nodeText(m))
		case strings.HasPrefix(typ, "list-"):
			var items []string
			for i, it := range children {
				bullet := "- "
				if typ == "list-ordered" {
					bullet = itoa(i+1) + ". "
				}
				im, _ := it.(map[string]any)
				items = append(items, bullet+nodeText(im))
			}
			blocks = append(blocks, strings.Join(items, "\n"))
		case typ == "code":
			var lines []string
			for _, l := range children {
				lm, _ := l.(map[string]any)
				lines = append(lines, nodeText(lm))
			}
			blocks = append(blocks, "```\n"+strings.Join(lines, "\n")+"\n```")
		default:
			if t := nodeText(m); t != "" {
				blocks = append(blocks, t)
			}
		}
	}
	if len(blocks) == 0 {
		return ""
	}
	return strings.Join(blocks, "\n\n") + "\n"
}

// nodeText is the text of a node's leaves.
func nodeText(m map[string]any) string {
	var b strings.Builder
	if leaves, ok := m["leaves"].([]any); ok {
		for _, l := range leaves {
			lm, _ := l.(map[string]any)
			s, _ := lm["text"].(string)
			b.WriteString(s)
		}
	}
	if children, ok := m["nodes"].([]any); ok {
		for _, c := range children {
			cm, _ := c.(map[string]any)
			b.WriteString(nodeText(cm))
		}
	}
	return b.String()
}

func bodyModel(md string, format *model.PageFormat) *model.CommentBody {
	if format != nil && *format == "document" {
		return &model.CommentBody{Document: markdown.ToDocument(md, nil)}
	}
	return &model.CommentBody{Markdown: &md}
}

func checkFormat(format *model.PageFormat) error {
	if format != nil {
		return checkEnum("format", *format, model.PageFormats.List())
	}
	return nil
}

// related is what converting a page of comments needs, read in one query
// each: the users, the reactions and the target pages.
type related struct {
	users     map[string]storage.User
	reactions map[string][]storage.Reaction
	pages     map[string]storage.ContentPage
}

func (r *Resolver) relatedTo(ctx context.Context, d discussion, cs []storage.Comment) (related, error) {
	var rel related
	ids, pageIDs := make([]string, 0, len(cs)), []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
		if c.PageID != "" {
			pageIDs = append(pageIDs, c.PageID)
		}
	}
	var err error
	if rel.reactions, err = r.Store.Reactions(ctx, ids); err != nil {
		return rel, err
	}
	userIDs := []string{}
	for _, c := range cs {
		userIDs = append(userIDs, c.PostedBy)
		if c.ResolvedBy != nil {
			userIDs = append(userIDs, *c.ResolvedBy)
		}
		for _, re := range rel.reactions[c.ID] {
			userIDs = append(userIDs, re.UserID)
		}
	}
	if rel.users, err = r.Store.UsersByIDs(ctx, userIDs); err != nil {
		return rel, err
	}
	rel.pages, err = r.Store.PagesByIDs(ctx, d.revision, pageIDs)
	return rel, err
}

func (r *Resolver) userOf(rel related, id string) *model.User {
	if u, ok := rel.users[id]; ok {
		return r.userModel(u)
	}
	return &model.User{Object: "user", ID: id, Urls: model.UserURLs{Location: r.Config.PublicURL + "/v1/users/" + id}}
}

func (r *Resolver) reactionModels(rel related, id string) []*model.EmojiReaction {
	out := []*model.EmojiReaction{}
	byEmoji := map[string]*model.EmojiReaction{}
	for _, re := range rel.reactions[id] {
		e := byEmoji[re.Emoji]
		if e == nil {
			e = &model.EmojiReaction{Emoji: re.Emoji, Users: []*model.EmojiReactionUser{}}
			byEmoji[re.Emoji] = e
			out = append(out, e)
		}
		e.Count++
		e.Users = append(e.Users, &model.EmojiReactionUser{User: r.userOf(rel, re.UserID), ReactedAt: model.Time(re.ReactedAt)})
	}
	return out
}

func (r *Resolver) commentModel(d discussion, rel related, c storage.Comment, format *model.PageFormat) *model.Comment {
	m := &model.Comment{Object: "comment", ID: c.ID, PostedBy: r.userOf(rel, c.PostedBy), PostedAt: model.Time(c.PostedAt),
		EditedAt: model.TimePtr(c.EditedAt), Reactions: r.reactionModels(rel, c.ID), Replies: c.Replies, Body: bodyModel(c.Body, format),
		Target: &model.CommentTarget{Space: c.Scope.SpaceID, Revision: c.RevisionID}, Urls: model.CommentURLs{Location: r.Config.PublicURL + d.location(c.ID)},
		Permissions: d.permissions(c), Status: model.CommentStatus(c.Status), ResolvedAt: model.TimePtr(c.ResolvedAt)}
	if c.ResolvedBy != nil {
		m.ResolvedBy = r.userOf(rel, *c.ResolvedBy)
	}
	if c.Scope.ChangeRequestID != "" {
		m.Target.ChangeRequest = &c.Scope.ChangeRequestID
	}
	if c.NodeID != "" {
		m.Target.Node = &model.CommentNode{ID: c.NodeID}
	}
	if c.TableRecord != "" || c.TableDefinition != "" {
		m.Target.TableCell = &model.TableCellTarget{Record: c.TableRecord, Definition: c.TableDefinition}
	}
	if c.PageID != "" {
		pt := &model.CommentPageTarget{ID: c.PageID, Title: c.PageTitle, Path: c.PagePath, Outdated: true}
		if p, ok := rel.pages[c.PageID]; ok {
			created, updated := model.Time(p.CreatedAt), model.Time(p.UpdatedAt)
			pt = &model.CommentPageTarget{ID: p.ID, Title: p.Title, Emoji: strPtr(p.Meta.Emoji), Icon: strPtr(p.Meta.Icon),
				CreatedAt: &created, UpdatedAt: &updated, Path: p.Path}
		}
		m.Target.Page = pt
	}
	return m
}

func (r *Resolver) replyModel(d discussion, rel related, c storage.Comment, format *model.PageFormat) *model.CommentReply {
	return &model.CommentReply{Object: "comment-reply", ID: c.ID, PostedBy: r.userOf(rel, c.PostedBy), PostedAt: model.Time(c.PostedAt),
		EditedAt: model.TimePtr(c.EditedAt), Reactions: r.reactionModels(rel, c.ID), Body: bodyModel(c.Body, format),
		Urls: model.CommentURLs{Location: r.Config.PublicURL + d.location(c.ParentID, c.ID)}, Permissions: d.permissions(c)}
}

func (r *Resolver) listComments(ctx context.Context, spaceID string, crID *string, order *model.Order, status *model.CommentStatusFilter,
	targetPage *string, authors []string, format *model.PageFormat, page *string, limit *int) (*model.CommentList, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	var f storage.CommentFilter
	if order != nil {
		if err := checkEnum("order", *order, model.Orders.List()); err != nil {
			return nil, err
		}
		f.Asc = *order == "asc"
	}
	if status != nil {
		if err := checkEnum("status", *status, model.CommentStatusFilters.List()); err != nil {
			return nil, err
		}
		if *status != "all" {
			f.Status = string(*status)
		}
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if targetPage != nil {
		f.PageID = *targetPage
	}
	if len(authors) > 100 {
		return nil, apierr.Invalid("authors", "must list at most 100 users")
	}
	f.Authors = authors
	p, err := r.Store.ListComments(ctx, d.key, f, pq)
	if err != nil {
		return nil, err
	}
	rel, err := r.relatedTo(ctx, d, p.Items)
	if err != nil {
		return nil, err
	}
	l := model.CommentList(listOf(p, func(c storage.Comment) *model.Comment { return r.commentModel(d, rel, c, format) }))
	return &l, nil
}

// commentIn reads one comment (replyOf "") or reply of a discussion.
func (r *Resolver) commentIn(ctx context.Context, d discussion, replyOf, id string) (storage.Comment, error) {
	c, err := r.Store.Comment(ctx, d.key, replyOf, id)
	if replyOf != "" {
		return c, notFoundAs(err, "comment reply")
	}
	return c, notFoundAs(err, "comment")
}

func (r *Resolver) oneComment(ctx context.Context, d discussion, id string, format *model.PageFormat) (*model.Comment, error) {
	c, err := r.commentIn(ctx, d, "", id)
	if err != nil {
		return nil, err
	}
	rel, err := r.relatedTo(ctx, d, []storage.Comment{c})
	if err != nil {
		return nil, err
	}
	return r.commentModel(d, rel, c, format), nil
}

func (r *Resolver) oneReply(ctx context.Context, d discussion, commentID, id string, format *model.PageFormat) (*model.CommentReply, error) {
	c, err := r.commentIn(ctx, d, commentID, id)
	if err != nil {
		return nil, err
	}
	rel, err := r.relatedTo(ctx, d, []storage.Comment{c})
	if err != nil {
		return nil, err
	}
	return r.replyModel(d, rel, c, format), nil
}

func (r *Resolver) getComment(ctx context.Context, spaceID string, crID *string, id string, format *model.PageFormat) (*model.Comment, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	return r.oneComment(ctx, d, id, format)
}

func (r *Resolver) postComment(ctx context.Context, spaceID string, crID *string, in model.PostCommentInput) (*model.Comment, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if err := d.access.require("comment", "commenting"); err != nil {
		return nil, err
	}
	body, err := commentBody("body", in.Body)
	if err != nil {
		return nil, err
	}
	c := storage.Comment{Scope: d.key, PostedBy: d.access.Caller.UserID, Body: body, RevisionID: d.revision}
	if in.Node != nil {
		if err := checkLen("node", *in.Node, 1, 256); err != nil {
			return nil, err
		}
		c.NodeID = *in.Node
	}
	if in.TableCell != nil {
		if err := firstErr(checkLen("tableCell.record", in.TableCell.Record, 1, 256), checkLen("tableCell.definition", in.TableCell.Definition, 1, 256)); err != nil {
			return nil, err
		}
		c.TableRecord, c.TableDefinition = in.TableCell.Record, in.TableCell.Definition
	}
	if in.Page != nil {
		p, err := r.Store.RevisionPage(ctx, d.revision, *in.Page, false)
		if err != nil {
			if apierr.Status(notFoundAs(err, "page")) == 404 {
				return nil, apierr.Invalid("page", "no page %q in this content", *in.Page)
			}
			return nil, err
		}
		c.PageID, c.PageTitle, c.PagePath = p.ID, p.Title, p.Path
	}
	if err := r.Store.PostComment(d.commentCreated(ctx, &c), &c); err != nil {
		return nil, err
	}
	return r.oneComment(ctx, d, c.ID, nil)
}

// commentUpdate validates an update of a comment or reply by the caller:
// the body only by its author; reactions and resolution with COMMENT.
func commentUpdate(d discussion, c storage.Comment, in model.UpdateCommentInput) (storage.CommentUpdate, error) {
	u := storage.CommentUpdate{UserID: d.access.Caller.UserID, Resolved: in.Resolved}
	if in.Body != nil {
		if c.PostedBy != d.access.Caller.UserID {
			return u, apierr.Forbidden("only the author can change a comment's body")
		}
		body, err := commentBody("body", in.Body)
		if err != nil {
			return u, err
		}
		u.Body = &body
	}
	for field, list := range map[string][]string{"addedReactions": in.AddedReactions, "removedReactions": in.RemovedReactions} {
		if len(list) > maxReactions {
			return u, apierr.Invalid(field, "must list at most %d emojis", maxReactions)
		}
		for _, e := range list {
			if err := checkLen(field, e, 1, maxEmoji); err != nil {
				return u, err
			}
		}
	}
	u.AddReactions, u.RemoveReactions = in.AddedReactions, in.RemovedReactions
	if (in.Resolved != nil || len(u.AddReactions) > 0 || len(u.RemoveReactions) > 0) && d.access.Role < roleRank["comment"] {
		return u, apierr.Forbidden("reacting and resolving need the comment role on the space")
	}
	return u, nil
}

func (r *Resolver) updateComment(ctx context.Context, spaceID string, crID *string, id string, in model.UpdateCommentInput) (*model.Comment, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	c, err := r.commentIn(ctx, d, "", id)
	if err != nil {
		return nil, err
	}
	u, err := commentUpdate(d, c, in)
	if err != nil {
		return nil, err
	}
	if err := r.Store.UpdateComment(d.updateRecorded(ctx, c, c, u), d.key, "", id, u); err != nil {
		return nil, notFoundAs(err, "comment")
	}
	return r.oneComment(ctx, d, id, nil)
}

// deleteComment deletes a comment (replyOf "") or a reply: its author or a
// space admin. Deleting what does not exist (or cannot be seen) is not an
// error (REST 204).
func (r *Resolver) deleteComment(ctx context.Context, spaceID string, crID *string, replyOf, id string) (*model.DeleteResult, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if replyOf != "" {
		if _, err := r.commentIn(ctx, d, "", replyOf); err != nil {
			return nil, err
		}
	}
	c, err := r.commentIn(ctx, d, replyOf, id)
	if apierr.Status(err) == 404 {
		return &model.DeleteResult{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !d.permissions(c).Delete {
		return nil, apierr.Forbidden("only the author or a space admin can delete this")
	}
	deleted, err := r.Store.DeleteComment(d.commentChanged(ctx, "comment.deleted", c, d.access.Caller.UserID), d.key, replyOf, id)
	return &model.DeleteResult{Deleted: deleted}, err
}

func (r *Resolver) listReplies(ctx context.Context, spaceID string, crID *string, commentID string, format *model.PageFormat, page *string, limit *int) (*model.CommentReplyList, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if _, err := r.commentIn(ctx, d, "", commentID); err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListComments(ctx, d.key, storage.CommentFilter{ParentID: commentID, Asc: true}, pq)
	if err != nil {
		return nil, err
	}
	rel, err := r.relatedTo(ctx, d, p.Items)
	if err != nil {
		return nil, err
	}
	l := model.CommentReplyList(listOf(p, func(c storage.Comment) *model.CommentReply { return r.replyModel(d, rel, c, format) }))
	return &l, nil
}

func (r *Resolver) getReply(ctx context.Context, spaceID string, crID *string, commentID, id string, format *model.PageFormat) (*model.CommentReply, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if _, err := r.commentIn(ctx, d, "", commentID); err != nil {
		return nil, err
	}
	return r.oneReply(ctx, d, commentID, id, format)
}

// postReply posts a reply and answers it with its body in format (the
// query parameter the reference gives the change-request level POST).
func (r *Resolver) postReply(ctx context.Context, spaceID string, crID *string, commentID string, in model.PostCommentReplyInput, format *model.PageFormat) (*model.CommentReply, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if _, err := r.commentIn(ctx, d, "", commentID); err != nil {
		return nil, err
	}
	if err := d.access.require("comment", "replying"); err != nil {
		return nil, err
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	body, err := commentBody("body", in.Body)
	if err != nil {
		return nil, err
	}
	c := storage.Comment{Scope: d.key, ParentID: commentID, PostedBy: d.access.Caller.UserID, Body: body, RevisionID: d.revision}
	if err := r.Store.PostComment(d.commentCreated(ctx, &c), &c); err != nil {
		return nil, notFoundAs(err, "comment")
	}
	return r.oneReply(ctx, d, commentID, c.ID, format)
}

// updateReply changes a reply; resolved (change-request level only)
// resolves or reopens the reply's thread.
func (r *Resolver) updateReply(ctx context.Context, spaceID string, crID *string, commentID, id string, in model.UpdateCommentInput) (*model.CommentReply, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if in.Resolved != nil && d.cr == nil {
		return nil, apierr.Invalid("resolved", "is accepted on replies of change-request comments only; resolve the comment itself")
	}
	thread, err := r.commentIn(ctx, d, "", commentID)
	if err != nil {
		return nil, err
	}
	c, err := r.commentIn(ctx, d, commentID, id)
	if err != nil {
		return nil, err
	}
	u, err := commentUpdate(d, c, in)
	if err != nil {
		return nil, err
	}
	if err := r.Store.UpdateComment(d.updateRecorded(ctx, thread, c, u), d.key, commentID, id, u); err != nil {
		return nil, notFoundAs(err, "comment reply")
	}
	return r.oneReply(ctx, d, commentID, id, nil)
}

func (r *Resolver) listCommenters(ctx context.Context, spaceID string, crID *string, page *string, limit *int) (*model.CommentersList, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListMembers(ctx, d.space.OrganizationID, storage.MemberFilter{CommentedIn: &d.key}, pq)
	if err != nil {
		return nil, err
	}
	l := listOf(p, func(m storage.Member) *model.Member { return r.memberModel(m) })
	return &model.CommentersList{Next: l.Next, Count: l.Count, Total: l.Count, Items: l.Items}, nil
}

// commentCreated describes the posting of c (a comment, or a reply with
// its comment as parent) for the organization's webhooks and audit log;
// c.ID is known once the write runs.
func (d discussion) commentCreated(ctx context.Context, c *storage.Comment) context.Context {
	return storage.Recording(ctx, func() []storage.Change {
		fields := map[string]any{"space": d.space.ID, "postedBy": c.PostedBy}
		if d.cr != nil {
			fields["changeRequest"] = d.cr.ID
		}
		if c.ParentID != "" {
			fields["parent"] = c.ParentID
		}
		return []storage.Change{{OrganizationID: d.space.OrganizationID, Action: "comment.created", TargetType: "comment", TargetID: c.ID, Fields: fields}}
	})
}

// commentChanged describes the edit ("comment.updated": body, reactions,
// resolution) or the deletion ("comment.deleted") of c, a comment or a
// reply, for the audit log and live updates (commentUpdated): a reply's
// change names its comment as parent. The author and posting time go with
// a deletion, for the payload subscribers get once the comment is gone.
func (d discussion) commentChanged(ctx context.Context, action string, c storage.Comment, by string, before ...storage.Change) context.Context {
	fields := map[string]any{"space": d.space.ID, "by": by, "postedBy": c.PostedBy, "postedAt": c.PostedAt.UnixMilli()}
	if d.cr != nil {
		fields["changeRequest"] = d.cr.ID
	}
	if c.ParentID != "" {
		fields["parent"] = c.ParentID
	}
	changes := append(before, storage.Change{OrganizationID: d.space.OrganizationID, Action: action,
		TargetType: "comment", TargetID: c.ID, Fields: fields})
	return storage.Recording(ctx, func() []storage.Change { return changes })
}

// updateRecorded describes u, an update of c (a comment, or a reply of
// thread): the thread's resolution alone when that is all u does (one
// change, one live event), else the update after it.
func (d discussion) updateRecorded(ctx context.Context, thread, c storage.Comment, u storage.CommentUpdate) context.Context {
	resolved := d.threadResolved(thread, u)
	if len(resolved) > 0 && u.Body == nil && len(u.AddReactions) == 0 && len(u.RemoveReactions) == 0 {
		return storage.Recording(ctx, func() []storage.Change { return resolved })
	}
	return d.commentChanged(ctx, "comment.updated", c, u.UserID, resolved...)
}

// threadResolved describes the resolution of an open thread by u (nothing
// for other updates), recorded before the update itself (commentChanged).
func (d discussion) threadResolved(thread storage.Comment, u storage.CommentUpdate) []storage.Change {
	if u.Resolved == nil || !*u.Resolved || thread.Status == "resolved" {
		return nil
	}
	fields := map[string]any{"space": d.space.ID, "resolvedBy": u.UserID}
	if d.cr != nil {
		fields["changeRequest"] = d.cr.ID
	}
	return []storage.Change{{OrganizationID: d.space.OrganizationID, Action: "comment.resolved",
		TargetType: "comment", TargetID: thread.ID, Fields: fields}}
}
