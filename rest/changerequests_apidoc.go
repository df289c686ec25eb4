package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in changerequests.go, the change-request
// mirrors of content.go, and comments.go (both prefixes) for the served API
// description.

func init() {
	declareEnum[model.ChangeRequestStatus](model.ChangeRequestStatuses.List())
	declareEnum[model.MergeOutcome](model.MergeOutcomes.List())
	declareEnum[model.CommentStatus](model.CommentStatuses.List())
	declareEnum[model.CommentStatusFilter](model.CommentStatusFilters.List())
	describe(Operation{Method: "GET", Pattern: "/spaces/{spaceId}/pdf", ID: "getSpacePDF", Tag: "space-content",
		Summary:  "A signed link (one hour) to the space's main content as PDF (read role).",
		Response: model.ChangeRequestPDF{}, Status: 200,
		Query: []Param{{Name: "page", Type: "", Description: "Only this page (with its sub-pages unless only)."},
			{Name: "only", Type: false, Description: "With page: without its sub-pages."}}})
	flags := []Param{
		{Name: "metadata", Type: false, Description: "Default true; false leaves out the revision's git commit (set by Git Sync imports)."},
		{Name: "computed", Type: false, Description: "Accepted for compatibility (default true); no computed content exists."},
	}
	pageFlags := append([]Param{
		{Name: "format", Type: model.PageFormat(""), Description: "markdown (default) or document (a JSON document of blocks)."},
		{Name: "evaluated", Type: false, Description: "Accepted (default false); Markdown bodies have nothing to evaluate."},
	}, flags...)
	op := func(method, suffix, id, summary string) Operation {
		return Operation{Method: method, Pattern: crPrefix + suffix, ID: id, Tag: "change-requests", Summary: summary, Status: 200}
	}
	with := func(o Operation, f func(o *Operation)) Operation { f(&o); return o }
	describe(
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/change-requests", ID: "listChangeRequestsForSpace", Tag: "change-requests",
			Summary: "Change requests of a space, highest number first.", Status: 200, Response: model.ChangeRequestList{},
			Query: append([]Param{
				{Name: "status", Type: model.ChangeRequestStatus(""), Description: "Only change requests in this status (default open)."},
				{Name: "contributor", Type: "", Description: "Only change requests this user created or changed."},
			}, pageParams...)},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/change-requests", ID: "createChangeRequest", Tag: "change-requests",
			Summary: "Start a change request (a draft) from the active revision (edit role, live space).", Body: model.CreateChangeRequestInput{}, Status: 201, Response: model.ChangeRequest{}},
		with(op("GET", "", "getChangeRequestById", "A change request by id or number."), func(o *Operation) { o.Response, o.Conditional = model.ChangeRequest{}, true }),
		with(op("PATCH", "", "updateChangeRequestById", "Change the subject or the status (draft, open, archived; edit role)."), func(o *Operation) {
			o.Body, o.Response, o.Conditional = model.UpdateChangeRequestInput{}, model.ChangeRequest{}, true
		}),
		with(op("POST", "/merge", "mergeChangeRequest", "Three-way merge into the main content (review role, live space); result conflicts changes nothing."), func(o *Operation) {
			o.Response = model.ChangeRequestResult{}
		}),
		with(op("POST", "/update", "updateChangeRequest", "Bring the main content's changes into the change request (edit role); result conflicts changes nothing."), func(o *Operation) {
			o.Response = model.ChangeRequestResult{}
		}),
		with(op("GET", "/pdf", "getChangeRequestPDF", "A signed link (one hour) to the change request's content as PDF."), func(o *Operation) {
			o.Response = model.ChangeRequestPDF{}
			o.Query = []Param{{Name: "page", Type: "", Description: "Only this page (with its sub-pages unless only)."},
				{Name: "only", Type: false, Description: "With page: without its sub-pages."}}
		}),
		with(op("GET", "/content", "getRevisionOfChangeRequestById", "The change request's head revision."), func(o *Operation) { o.Query, o.Response = flags, model.Revision{} }),
		with(op("POST", "/content/import", "importContentInChangeRequest", "Import content into the change request (edit role)."), func(o *Operation) {
			o.Body, o.Status, o.Response = model.ImportContentInput{}, 201, model.ImportContentResult{}
		}),
		with(op("POST", "/content/page/{pageId}/import", "importContentInChangeRequestPageById", "Import content into one page of the change request (edit role)."), func(o *Operation) {
			o.Body, o.Status, o.Response = model.ImportContentInput{}, 201, model.ImportContentResult{}
		}),
		with(op("GET", "/content/pages", "listPagesInChangeRequest", "The page tree of the change request."), func(o *Operation) { o.Query, o.Response = flags, model.PageList{} }),
		with(op("GET", "/content/files", "listFilesInChangeRequestById", "Files of the change request."), func(o *Operation) {
			o.Query, o.Response = append(append([]Param{}, pageParams...), flags...), model.RevisionFileList{}
		}),
		with(op("GET", "/content/files/{fileId}", "getFileInChangeRequestById", "A file of the change request."), func(o *Operation) { o.Query, o.Response = flags, model.RevisionFile{} }),
		with(op("GET", "/content/files/{fileId}/backlinks", "listChangeRequestFileBacklinks", "Pages of the change request linking to a file."), func(o *Operation) {
			o.Query, o.Response = pageParams, model.ContentLocationList{}
		}),
		with(op("GET", "/content/page/{pageId}", "getPageInChangeRequestById", "A page of the change request with its body."), func(o *Operation) { o.Query, o.Response = pageFlags, model.RevisionPage{} }),
		with(op("GET", "/content/path/*", "getPageInChangeRequestByPath", "A page of the change request by path."), func(o *Operation) { o.Query, o.Response = pageFlags, model.RevisionPage{} }),
		with(op("GET", "/content/page/{pageId}/links", "listPageLinksInChangeRequest", "Link targets of a page of the change request, with stats."), func(o *Operation) {
			o.Query, o.Response = pageParams, model.LinkList{}
		}),
		with(op("GET", "/content/page/{pageId}/backlinks", "listChangeRequestPageBacklinks", "Pages of the change request linking to a page."), func(o *Operation) {
			o.Query, o.Response = pageParams, model.ContentLocationList{}
		}),
	)
	describeComments("/spaces/{spaceId}", "InSpace", "space-comments")
	describeComments(crPrefix, "InChangeRequest", "change-request-comments")
}

// describeComments declares the comment operations under one prefix;
// operationIds end with suffix (InSpace, InChangeRequest).
func describeComments(prefix, suffix, tag string) {
	format := Param{Name: "format", Type: model.PageFormat(""), Description: "Bodies as markdown (default) or document."}
	op := func(method, path, id, summary string, status int, res any) Operation {
		return Operation{Method: method, Pattern: prefix + path, ID: id + suffix, Tag: tag, Summary: summary, Status: status, Response: res}
	}
	list := op("GET", "/comments", "listComments", "Comments, newest first by default.", 200, model.CommentList{})
	list.Query = append([]Param{
		{Name: "order", Type: model.Order(""), Description: "asc or desc (default) by time posted."},
		{Name: "status", Type: model.CommentStatusFilter(""), Description: "all (default), open or resolved."},
		{Name: "targetPage", Type: "", Description: "Only comments on this page."},
		{Name: "authors", Type: []string{}, Description: "Only comments by these users (repeat the key)."},
		format,
	}, pageParams...)
	post := op("POST", "/comments", "postComment", "Post a comment (comment role).", 200, model.Comment{})
	post.Body = model.PostCommentInput{}
	get := op("GET", "/comments/{commentId}", "getComment", "A comment.", 200, model.Comment{})
	get.Query, get.Conditional = []Param{format}, true
	put := op("PUT", "/comments/{commentId}", "updateComment", "Resolve, edit (author) or react to a comment.", 200, model.Comment{})
	put.Body, put.Conditional = model.UpdateCommentInput{}, true
	del := op("DELETE", "/comments/{commentId}", "deleteComment", "Delete a comment and its replies (author or space admin).", 205, nil)
	del.Conditional = true
	replies := op("GET", "/comments/{commentId}/replies", "listCommentReplies", "Replies, oldest first.", 200, model.CommentReplyList{})
	replies.Query = append([]Param{format}, pageParams...)
	postReply := op("POST", "/comments/{commentId}/replies", "postCommentReply", "Reply to a comment (comment role).", 200, model.CommentReply{})
	postReply.Body, postReply.Query = model.PostCommentReplyInput{}, []Param{format}
	getReply := op("GET", "/comments/{commentId}/replies/{commentReplyId}", "getCommentReply", "A reply.", 200, model.CommentReply{})
	getReply.Query, getReply.Conditional = []Param{format}, true
	putReply := op("PUT", "/comments/{commentId}/replies/{commentReplyId}", "updateCommentReply", "Edit (author) or react to a reply; resolved (change requests only) resolves the thread.", 200, model.CommentReply{})
	putReply.Body, putReply.Conditional = model.UpdateCommentInput{}, true
	delReply := op("DELETE", "/comments/{commentId}/replies/{commentReplyId}", "deleteCommentReply", "Delete a reply (author or space admin).", 205, nil)
	delReply.Conditional = true
	commenters := op("GET", "/commenters", "listCommenters", "Members who posted comments or replies.", 200, model.CommentersList{})
	commenters.Query = pageParams
	describe(list, post, get, put, del, replies, postReply, getReply, putReply, delReply, commenters)
}
