package graph

import (
	"context"
	"errors"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Helpers shared by collections and spaces: loading what the caller may
// see, moves, transfers and grants.

// TrashRetention is how long a deleted space can be restored; the trash
// worker removes it for good afterwards.
const TrashRetention = 7 * 24 * time.Hour

// accessOf loads userID's view of orgID's content (the whole tree, or the
// chain above chainFrom). A token scoped to another organization sees
// nothing there.
func (r *Resolver) accessOf(ctx context.Context, c auth.Caller, orgID, userID string, chainFrom *string) (*contentAccess, error) {
	return r.accessFrom(ctx, c, orgID, userID, func() (storage.AccessData, error) {
		return r.Store.ContentAccess(ctx, orgID, userID, chainFrom)
	})
}

// accessFrom is accessOf with userID's access data given by load (called
// only when that data decides).
func (r *Resolver) accessFrom(ctx context.Context, c auth.Caller, orgID, userID string, load func() (storage.AccessData, error)) (*contentAccess, error) {
	if c.OrganizationID != "" && c.OrganizationID != orgID {
		return newContentAccess(storage.AccessData{}), nil
	}
	if isInstallationToken(c) && userID == c.UserID {
		// The token acts for its installation, never as the user who minted it.
		return r.installationContent(ctx, c)
	}
	d, err := load()
	if err != nil {
		return nil, err
	}
	return memberAccess(ctx, r.Store, orgID, d), nil
}

// memberAccess is d's view of orgID's content, looking the member's space
// grants up in st when d does not hold them (SpaceGrantsPartial).
func memberAccess(ctx context.Context, st storage.Store, orgID string, d storage.AccessData) *contentAccess {
	a := newContentAccess(d)
	if d.SpaceGrantsPartial {
		a.lookupGrants = func(ids []string) ([]storage.ContentGrant, error) {
			return st.SpaceGrantsAmong(ctx, orgID, d.UserID, d.Teams, ids)
		}
	}
	return a
}

// orgContent is the caller's view of a whole organization's content; 404
// when the caller is not a member.
func (r *Resolver) orgContent(ctx context.Context, orgID string) (auth.Caller, *contentAccess, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return c, nil, err
	}
	a, err := r.accessOf(ctx, c, orgID, c.UserID, nil)
	if err != nil {
		return c, nil, err
	}
	if !a.member {
		return c, nil, apierr.NotFound("organization")
	}
	return c, a, nil
}

// ContentScope is one collection or space with the caller's role on it
// (what content mutations of later families receive from
// SpaceForContentChange).
type ContentScope struct {
	Caller auth.Caller
	Access *contentAccess
	Role   int
	what   string
}

// require refuses with 403 when the caller's role on the item is below min.
func (s ContentScope) require(min model.Role, action string) error {
	if s.Role < roleRank[min] {
		return apierr.Forbidden("%s needs the %s role on the %s", action, min, s.what)
	}
	return nil
}

// treeScope tells the scope loaders to read the whole collection tree (moves,
// lists) rather than the chain above the item.
type treeScope bool

const (
	chainOnly treeScope = false
	wholeTree treeScope = true
)

// collectionScope loads a collection the caller can see; unknown,
// other-organization and invisible collections are all 404.
func (r *Resolver) collectionScope(ctx context.Context, id string, tree treeScope) (storage.Collection, ContentScope, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return storage.Collection{}, ContentScope{}, err
	}
	col, err := r.Store.Collection(ctx, id)
	if err != nil {
		return col, ContentScope{}, notFoundAs(err, "collection")
	}
	chain := &col.ID
	if tree {
		chain = nil
	}
	a, err := r.accessOf(ctx, c, col.OrganizationID, c.UserID, chain)
	if err != nil {
		return col, ContentScope{}, err
	}
	s := ContentScope{Caller: c, Access: a, Role: a.effectiveRole(collectionItem(col)), what: "collection"}
	if s.Role == 0 {
		return col, s, apierr.NotFound("collection")
	}
	return col, s, nil
}

// spaceScope loads a space the caller can see. Trashed spaces are 404
// unless trashed is set (restore).
func (r *Resolver) spaceScope(ctx context.Context, id string, tree treeScope, trashed bool) (storage.Space, ContentScope, error) {
	c, err := readerOf(ctx)
	if err != nil {
		return storage.Space{}, ContentScope{}, err
	}
	if c.Site != nil {
		return r.siteTokenSpace(ctx, c, id, trashed)
	}
	// The space and the caller's access data in its organization come
	// together: one change counter reading between writes (the access data
	// always holds the whole tree, so tree needs nothing more).
	sp, d, err := r.Store.SpaceAccess(ctx, id, c.UserID)
	if err != nil {
		return sp, ContentScope{}, notFoundAs(err, "space")
	}
	if (sp.DeletedAt != nil) != trashed {
		return sp, ContentScope{}, apierr.NotFound("space")
	}
	a, err := r.accessFrom(ctx, c, sp.OrganizationID, c.UserID, func() (storage.AccessData, error) { return d, nil })
	if err != nil {
		return sp, ContentScope{}, err
	}
	if err := a.primeSpaces(sp.ID); err != nil {
		return sp, ContentScope{}, err
	}
	s := ContentScope{Caller: c, Access: a, Role: a.spaceRole(sp), what: "space"}
	if s.Role == 0 {
		return sp, s, apierr.NotFound("space")
	}
	return sp, s, nil
}

// requireLive refuses content changes to a locked space with 409: a lock is
// a state of the space, not a lack of permission, and it holds for every
// role until an admin sets editMode back to live.
func requireLive(sp storage.Space) error {
	if sp.EditMode == "locked" {
		return apierr.Conflict("the space is locked (editMode is locked): its content cannot change until it is set back to live")
	}
	return nil
}

// SpaceForContentChange is the one gate of every change to a space's
// content (pages, files, imports, change requests, merges): the space must
// be visible (404), the caller must hold min on it (403), and the space must
// be live (409 while locked).
func (r *Resolver) SpaceForContentChange(ctx context.Context, spaceID string, min model.Role) (storage.Space, ContentScope, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return sp, s, err
	}
	if err := s.require(min, "changing the space's content"); err != nil {
		return sp, s, err
	}
	return sp, s, requireLive(sp)
}

// destination is where a new or moved item goes: the parent (nil: top
// level) and the position among its new siblings.
type destination struct {
	Parent *string
	At     storage.Placement
}

// checkCreateAt checks that parent is a collection of orgID where the caller
// may create (400 when it does not exist or cannot be seen, 403 without
// the create role there). nil is the top level.
func checkCreateAt(a *contentAccess, orgID string, parent *string, field string) error {
	if parent != nil {
		if _, ok := a.nodes[*parent]; !ok || a.collectionRole(*parent) == 0 {
			return apierr.Invalid(field, "no collection %q in this organization", *parent)
		}
	}
	if !a.canCreateAt(parent) {
		if parent == nil {
			return apierr.Forbidden("creating content at the top level needs the create role in the organization")
		}
		return apierr.Forbidden("creating content in this collection needs the create role on it")
	}
	return nil
}

// resolveMove turns a move body into a destination for item (of orgID,
// currently under current). a holds the whole tree.
func (r *Resolver) resolveMove(ctx context.Context, a *contentAccess, orgID string, item storage.ContentRef, current *string, in model.MoveContentInput) (destination, error) {
	var d destination
	if !in.Parent.IsSet() && in.Position == nil {
		return d, apierr.Invalid("body", "needs at least one of parent, position")
	}
	var pointerParent **string
	if in.Position != nil {
		for _, p := range []struct {
			field string
			ptr   *model.ContentPointerInput
			dst   **storage.ContentRef
		}{{"position.before", in.Position.Before, &d.At.Before}, {"position.after", in.Position.After, &d.At.After}} {
			if p.ptr == nil {
				continue
			}
			ref, parent, err := r.resolvePointer(ctx, a, orgID, p.field, *p.ptr)
			if err != nil {
				return d, err
			}
			if ref == item {
				return d, apierr.Invalid(p.field, "cannot point at the item being moved")
			}
			if pointerParent != nil && !samePtr(*pointerParent, parent) {
				return d, apierr.Invalid("position", "before and after must be siblings")
			}
			*p.dst, pointerParent = &ref, &parent
		}
	}
	switch parent, set := in.Parent.ValueOK(); {
	case set:
		d.Parent = parent
		if pointerParent != nil && !samePtr(*pointerParent, parent) {
			return d, apierr.Invalid("position", "must point at a sibling inside the destination parent")
		}
	case pointerParent != nil:
		d.Parent = *pointerParent
	default:
		d.Parent = current
	}
	if item.Kind == storage.KindCollection {
		for p, depth := d.Parent, 0; p != nil && depth < maxDepth; p, depth = a.nodes[*p].ParentID, depth+1 {
			if *p == item.ID {
				return d, apierr.Invalid("parent", "a collection cannot move into itself or a collection under it")
			}
		}
	}
	if !samePtr(d.Parent, current) {
		if err := checkCreateAt(a, orgID, d.Parent, "parent"); err != nil {
			return d, err
		}
	}
	return d, nil
}

func samePtr(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// resolvePointer checks a position pointer and returns the item and its
// parent. Pointers at items that do not exist, are elsewhere or cannot be
// seen are 400s (an invalid position).
func (r *Resolver) resolvePointer(ctx context.Context, a *contentAccess, orgID, field string, p model.ContentPointerInput) (storage.ContentRef, *string, error) {
	switch p.Type {
	case "space":
		if p.Space == nil {
			return storage.ContentRef{}, nil, apierr.Invalid(field+".space", "is required for a space pointer")
		}
		sp, err := r.Store.Space(ctx, *p.Space)
		if err == nil && sp.OrganizationID == orgID {
			err = a.primeSpaces(sp.ID)
		}
		if err != nil || sp.OrganizationID != orgID || sp.DeletedAt != nil || a.spaceRole(sp) == 0 {
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return storage.ContentRef{}, nil, err
			}
			return storage.ContentRef{}, nil, apierr.Invalid(field+".space", "no space %q in this organization", *p.Space)
		}
		return storage.ContentRef{Kind: storage.KindSpace, ID: sp.ID}, sp.ParentID, nil
	case "collection":
		if p.Collection == nil {
			return storage.ContentRef{}, nil, apierr.Invalid(field+".collection", "is required for a collection pointer")
		}
		n, ok := a.nodes[*p.Collection]
		if !ok || a.collectionRole(n.ID) == 0 {
			return storage.ContentRef{}, nil, apierr.Invalid(field+".collection", "no collection %q in this organization", *p.Collection)
		}
		return storage.ContentRef{Kind: storage.KindCollection, ID: n.ID}, n.ParentID, nil
	}
	return storage.ContentRef{}, nil, apierr.Invalid(field+".type", "must be one of %s (got %q)", model.ContentPointerTypes.List(), string(p.Type))
}

// moveError maps the storage refusals of a move.
func moveError(err error, what string) error {
	switch {
	case errors.Is(err, storage.ErrNoChange):
		return apierr.Conflict("the move would not change anything")
	case errors.Is(err, storage.ErrBadPosition):
		return apierr.Invalid("position", "must point at adjacent siblings in the destination")
	}
	return notFoundAs(err, what)
}

// checkTransfer lets the caller transfer content of from to the
// organization to: admin of from (403; the caller can see the item), member
// of to (404 otherwise) and admin there (403); the same organization is 409.
func (r *Resolver) checkTransfer(ctx context.Context, s ContentScope, from, to string) error {
	if err := checkLen("organization", to, 1, 0); err != nil {
		return err
	}
	if s.Access.orgRank < roleRank["admin"] {
		return apierr.Forbidden("transferring content needs the admin role in its organization")
	}
	target, err := r.inOrg(ctx, to)
	if err != nil {
		return err
	}
	if err := target.require("admin", "transferring content"); err != nil {
		return err
	}
	if to == from {
		return apierr.Conflict("the content already belongs to this organization")
	}
	return nil
}

func (r *Resolver) collectionModel(c storage.Collection, role int) *model.Collection {
	base := r.Config.PublicURL
	return &model.Collection{
		Object: "collection", ID: c.ID, Title: c.Title, Description: c.Description, Organization: c.OrganizationID,
		Parent: c.ParentID, DefaultLevel: defaultLevelModel(c.DefaultLevel),
		Urls:        model.CollectionURLs{Location: base + "/v1/collections/" + c.ID, App: base + "/c/" + c.ID},
		Permissions: collectionPermissions(role),
	}
}

func (r *Resolver) spaceModel(s storage.Space, role int) *model.Space {
	base := r.Config.PublicURL
	emoji := ""
	if s.Emoji != nil {
		emoji = *s.Emoji
	}
	var gitSync *model.GitSyncState
	if s.GitSync != nil {
		gitSync = gitSyncStateModel(*s.GitSync)
	}
	return &model.Space{
		GitSync: gitSync, Object: "space", ID: s.ID, Type: model.SpaceTypeDocument, Title: s.Title, Emoji: emoji, Visibility: model.ContentVisibility(s.Visibility),
		CreatedAt: model.Time(s.CreatedAt), UpdatedAt: model.Time(s.UpdatedAt), DeletedAt: model.TimePtr(s.DeletedAt),
		EditMode: model.SpaceEditMode(s.EditMode), Organization: s.OrganizationID, Parent: s.ParentID,
		Revision: s.RevisionID, DefaultLevel: defaultLevelModel(s.DefaultLevel),
		Comments: s.Comments, ChangeRequests: s.ChangeRequests, ChangeRequestsOpen: s.ChangeRequestsOpen, ChangeRequestsDraft: s.ChangeRequestsDraft,
		Urls:        model.SpaceURLs{Location: base + "/v1/spaces/" + s.ID, App: base + "/s/" + s.ID, Icon: s.Icon},
		Permissions: spacePermissions(role, s.EditMode == "locked"),
	}
}

func defaultLevelModel(l *string) *model.DefaultLevel {
	if l == nil {
		return nil
	}
	v := model.DefaultLevel(*l)
	return &v
}

// defaultLevelInput validates an optional, nullable defaultLevel.
func defaultLevelInput(v *model.DefaultLevel) (*string, error) {
	if v == nil {
		return nil, nil
	}
	if err := checkEnum("defaultLevel", *v, model.DefaultLevels.List()+" or null"); err != nil {
		return nil, err
	}
	s := string(*v)
	return &s, nil
}

// PurgeTrash removes for good the spaces deleted more than TrashRetention
// ago (the trash worker calls it; tests call it after advancing the clock).
func (r *Resolver) PurgeTrash(ctx context.Context) (int, error) {
	n, err := r.Store.PurgeSpaces(ctx, r.Now().Add(-TrashRetention))
	if n > 0 {
		r.notifyDeliveries() // their space installations went with them
	}
	return n, err
}

// grantTarget loads the space or collection a grant is about (exactly one)
// and checks that the caller administrates it.
func (r *Resolver) grantTarget(ctx context.Context, space, collection *string) (storage.ContentRef, string, error) {
	t, err := r.contentTarget(ctx, space, collection)
	if err != nil {
		return t.Item.Ref, "", err
	}
	return t.Item.Ref, t.OrgID, t.Scope.require("admin", "managing who has access")
}

// contentTarget is a space or a collection named by exactly one of two ids,
// with the caller's role on it.
type contentTarget struct {
	Item  contentItem
	OrgID string
	Scope ContentScope
}

// contentTarget loads the space or the collection (exactly one) the caller
// can see: unknown, other-organization and invisible ones are 404.
func (r *Resolver) contentTarget(ctx context.Context, space, collection *string) (contentTarget, error) {
	switch {
	case (space == nil) == (collection == nil):
		return contentTarget{}, apierr.Invalid("space", "give exactly one of space and collection")
	case space != nil:
		sp, sc, err := r.spaceScope(ctx, *space, chainOnly, false)
		return contentTarget{Item: spaceItem(sp), OrgID: sp.OrganizationID, Scope: sc}, err
	default:
		c, sc, err := r.collectionScope(ctx, *collection, chainOnly)
		return contentTarget{Item: collectionItem(c), OrgID: c.OrganizationID, Scope: sc}, err
	}
}

// grantPrincipal checks the team or member (exactly one) of a grant input.
func (r *Resolver) grantPrincipal(ctx context.Context, orgID string, in model.ContentGrantInput) (string, string, error) {
	switch {
	case (in.Team == nil) == (in.User == nil):
		return "", "", apierr.Invalid("team", "give exactly one of team and user")
	case in.Team != nil:
		if _, err := r.Store.Team(ctx, orgID, *in.Team); err != nil {
			if apierr.Status(notFoundAs(err, "team")) == 404 {
				return "", "", apierr.Invalid("team", "no team %q in this organization", *in.Team)
			}
			return "", "", err
		}
		return "team", *in.Team, nil
	default:
		m, err := r.Store.MembershipOf(ctx, orgID, *in.User)
		if err != nil {
			return "", "", err
		}
		if m == nil {
			return "", "", apierr.Invalid("user", "%q is not a member of this organization", *in.User)
		}
		return "user", *in.User, nil
	}
}

func grantModel(g storage.ContentGrant) *model.ContentGrant {
	t := model.ContentPointer{Type: model.ContentPointerType(g.TargetKind)}
	if g.TargetKind == storage.KindSpace {
		t.Space = &g.TargetID
	} else {
		t.Collection = &g.TargetID
	}
	return &model.ContentGrant{Target: t, PrincipalType: model.GrantPrincipalType(g.PrincipalKind), Principal: g.PrincipalID,
		Role: model.Role(g.Role), CreatedAt: model.Time(g.CreatedAt)}
}
