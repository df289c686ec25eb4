package graph

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"docsapi/apierr"
	"docsapi/conditions"
	"docsapi/graph/model"
	"docsapi/positions"
	"docsapi/storage"
)

// The structure of a site and its one ordering mechanism.
//
// A site's root holds either site spaces (a site without sections) or
// sections and section groups; a group holds sections; a section holds site
// spaces (its variants). Every item is in exactly one container. Changes are
// made on a siteTree built from a read of the whole structure and saved as
// a whole (storage.SaveSiteStructure), retried when another change won the
// race. Every move — sortSiteStructure and the three deprecated moves — is
// siteTree.move.
//
// Defaults: each section (and the root of a site without sections) has a
// default site space, and the site a default section. When a default goes
// (deleted or moved away), the first remaining item of that container in
// the stored order takes its place (siteTree.normalize).

const (
	sitePathMax           = 100
	sectionDescriptionMax = 256
	iconNameMax           = 50
	conditionMax          = 1024
	groupTitleMax         = 100
)

// Structure item kinds, as pointers name them.
const (
	kindSiteSpace = "site-space"
	kindSection   = "site-section"
	kindGroup     = "site-section-group"
)

type treeRef struct{ kind, id string }

// siteTree is a site structure being changed.
type siteTree struct {
	version          int64
	defaultSiteSpace *string
	defaultSection   *string
	groups           map[string]*storage.SiteSectionGroup
	sections         map[string]*storage.SiteSection
	spaces           map[string]*storage.SiteSpace
	root             []treeRef
	inGroup          map[string][]treeRef
	inSection        map[string][]treeRef
}

func newSiteTree(st storage.SiteStructure) *siteTree {
	t := &siteTree{version: st.Version, defaultSiteSpace: st.DefaultSiteSpaceID, defaultSection: st.DefaultSectionID,
		groups: map[string]*storage.SiteSectionGroup{}, sections: map[string]*storage.SiteSection{}, spaces: map[string]*storage.SiteSpace{},
		inGroup: map[string][]treeRef{}, inSection: map[string][]treeRef{}}
	type placed struct {
		ref treeRef
		pos int
	}
	var root []placed
	for i := range st.Groups {
		g := &st.Groups[i]
		t.groups[g.ID] = g
		root = append(root, placed{treeRef{kindGroup, g.ID}, g.Position})
	}
	for i := range st.Sections {
		s := &st.Sections[i]
		t.sections[s.ID] = s
		if s.GroupID != nil && t.groups[*s.GroupID] != nil {
			t.inGroup[*s.GroupID] = append(t.inGroup[*s.GroupID], treeRef{kindSection, s.ID})
		} else {
			s.GroupID = nil
			root = append(root, placed{treeRef{kindSection, s.ID}, s.Position})
		}
	}
	for i := range st.SiteSpaces {
		ss := &st.SiteSpaces[i]
		t.spaces[ss.ID] = ss
		if ss.SectionID != nil && t.sections[*ss.SectionID] != nil {
			t.inSection[*ss.SectionID] = append(t.inSection[*ss.SectionID], treeRef{kindSiteSpace, ss.ID})
		} else {
			ss.SectionID = nil
			root = append(root, placed{treeRef{kindSiteSpace, ss.ID}, ss.Position})
		}
	}
	slices.SortStableFunc(root, func(a, b placed) int { return a.pos - b.pos })
	for _, p := range root {
		t.root = append(t.root, p.ref)
	}
	return t
}

// hasSections tells which kind of root the site has.
func (t *siteTree) hasSections() bool { return len(t.sections) > 0 }

// container is the slice holding ref.
func (t *siteTree) container(ref treeRef) *[]treeRef {
	switch ref.kind {
	case kindSiteSpace:
		if sec := t.spaces[ref.id].SectionID; sec != nil {
			list := t.inSection[*sec]
			return &list
		}
	case kindSection:
		if g := t.sections[ref.id].GroupID; g != nil {
			list := t.inGroup[*g]
			return &list
		}
	}
	return &t.root
}

// setContainer stores a changed container slice back.
func (t *siteTree) setContainer(like treeRef, list []treeRef) {
	switch like.kind {
	case kindSiteSpace:
		if sec := t.spaces[like.id].SectionID; sec != nil {
			t.inSection[*sec] = list
			return
		}
	case kindSection:
		if g := t.sections[like.id].GroupID; g != nil {
			t.inGroup[*g] = list
			return
		}
	}
	t.root = list
}

// detach takes ref out of its container.
func (t *siteTree) detach(ref treeRef) {
	list := *t.container(ref)
	if i := slices.Index(list, ref); i >= 0 {
		t.setContainer(ref, slices.Delete(slices.Clone(list), i, i+1))
	}
}

// attach puts ref into the container its row names, at index (-1: the end).
func (t *siteTree) attach(ref treeRef, index int) {
	list := slices.Clone(*t.container(ref))
	if index < 0 || index > len(list) {
		index = len(list)
	}
	t.setContainer(ref, slices.Insert(list, index, ref))
}

// exists tells whether the tree holds an item of that kind.
func (t *siteTree) exists(ref treeRef) bool {
	switch ref.kind {
	case kindSiteSpace:
		return t.spaces[ref.id] != nil
	case kindSection:
		return t.sections[ref.id] != nil
	case kindGroup:
		return t.groups[ref.id] != nil
	}
	return false
}

// removeSiteSpace drops a site space.
func (t *siteTree) removeSiteSpace(id string) {
	t.detach(treeRef{kindSiteSpace, id})
	delete(t.spaces, id)
}

// removeSection drops a section and its site spaces.
func (t *siteTree) removeSection(id string) {
	for _, ref := range t.inSection[id] {
		delete(t.spaces, ref.id)
	}
	delete(t.inSection, id)
	t.detach(treeRef{kindSection, id})
	delete(t.sections, id)
}

// removeGroup drops a group; its sections take its place at the root.
func (t *siteTree) removeGroup(id string) {
	ref := treeRef{kindGroup, id}
	at := slices.Index(t.root, ref)
	members := t.inGroup[id]
	for _, m := range members {
		t.sections[m.id].GroupID = nil
	}
	t.root = slices.Insert(slices.Delete(slices.Clone(t.root), at, at+1), at, members...)
	delete(t.inGroup, id)
	delete(t.groups, id)
}

// sectionOrder lists sections in structure order.
func (t *siteTree) sectionOrder() []string {
	var out []string
	for _, ref := range t.root {
		switch ref.kind {
		case kindSection:
			out = append(out, ref.id)
		case kindGroup:
			for _, m := range t.inGroup[ref.id] {
				out = append(out, m.id)
			}
		}
	}
	return out
}

// normalize applies the successor rule to every default, and drops groups
// left in a site without sections (its root holds site spaces).
func (t *siteTree) normalize() {
	firstOf := func(list []treeRef, current *string) *string {
		if current != nil && slices.Contains(list, treeRef{kindSiteSpace, *current}) {
			return current
		}
		if len(list) == 0 {
			return nil
		}
		return &list[0].id
	}
	for id, sec := range t.sections {
		sec.DefaultSiteSpaceID = firstOf(t.inSection[id], sec.DefaultSiteSpaceID)
	}
	if t.hasSections() {
		t.defaultSiteSpace = nil
		order := t.sectionOrder()
		if t.defaultSection == nil || !slices.Contains(order, *t.defaultSection) {
			t.defaultSection = &order[0]
		}
		return
	}
	t.defaultSection = nil
	for id := range t.groups {
		t.detach(treeRef{kindGroup, id})
		delete(t.groups, id)
		delete(t.inGroup, id)
	}
	t.defaultSiteSpace = firstOf(t.root, t.defaultSiteSpace)
}

// plan is the whole structure to save, positions following the containers.
// Positions are gapped (positionsFor): a change writes the rows of the items
// it moved or added, not every sibling after them.
func (t *siteTree) plan() storage.SiteStructure {
	t.normalize()
	st := storage.SiteStructure{Version: t.version, DefaultSiteSpaceID: t.defaultSiteSpace, DefaultSectionID: t.defaultSection}
	spacesOf := func(list []treeRef, section *string) {
		pos := positionsFor(list, t.position)
		for i, ref := range list {
			ss := *t.spaces[ref.id]
			ss.SectionID, ss.Position = section, pos[i]
			st.SiteSpaces = append(st.SiteSpaces, ss)
		}
	}
	sectionAt := func(id string, group *string, pos int) {
		sec := *t.sections[id]
		sec.GroupID, sec.Position = group, pos
		st.Sections = append(st.Sections, sec)
		spacesOf(t.inSection[id], &sec.ID)
	}
	rootPos := positionsFor(t.root, t.position)
	for i, ref := range t.root {
		switch ref.kind {
		case kindSiteSpace:
			spacesOf([]treeRef{ref}, nil)
			st.SiteSpaces[len(st.SiteSpaces)-1].Position = rootPos[i]
		case kindSection:
			sectionAt(ref.id, nil, rootPos[i])
		case kindGroup:
			g := *t.groups[ref.id]
			g.Position = rootPos[i]
			st.Groups = append(st.Groups, g)
			members := t.inGroup[ref.id]
			pos := positionsFor(members, t.position)
			for j, m := range members {
				sectionAt(m.id, &g.ID, pos[j])
			}
		}
	}
	return st
}

// position is an item's stored position (0 for an item not saved yet).
func (t *siteTree) position(ref treeRef) int {
	switch ref.kind {
	case kindSiteSpace:
		return t.spaces[ref.id].Position
	case kindSection:
		return t.sections[ref.id].Position
	case kindGroup:
		return t.groups[ref.id].Position
	}
	return 0
}

// positionStep is the gap left between positions given afresh, so that
// about twenty moves into one gap fit before neighbours are spread again
// (positions.Gapped).
const positionStep = 1 << 20

// maxPosition is the largest position a sort key holds (twelve digits).
const maxPosition = 999_999_999_999

// positionsFor gives the items of one container increasing positions that
// change only for what moved or is new (positions.Gapped).
func positionsFor(list []treeRef, stored func(treeRef) int) []int {
	old := make([]int, len(list))
	for i, ref := range list {
		old[i] = stored(ref)
	}
	return positions.Gapped(old, positionStep, maxPosition)
}

// sitePathTaken tells whether path is used by another site space of the
// container (section, or root).
func (t *siteTree) sitePathTaken(section *string, path, except string) bool {
	list := t.root
	if section != nil {
		list = t.inSection[*section]
	}
	for _, ref := range list {
		if ref.kind == kindSiteSpace && ref.id != except && t.spaces[ref.id].Path == path {
			return true
		}
	}
	return false
}

func (t *siteTree) sectionPathTaken(path, except string) bool {
	for id, s := range t.sections {
		if id != except && s.Path == path {
			return true
		}
	}
	return false
}

// newSiteSpace adds a site space for sp at the end of section (nil: the
// root), with a path made unique among its siblings.
func (t *siteTree) newSiteSpace(sp storage.Space, section *string) *storage.SiteSpace {
	ss := &storage.SiteSpace{ID: storage.NewID(), SectionID: section, SpaceID: sp.ID, Space: sp}
	ss.Path = uniqueName(slug(sp.Title, "space", sitePathMax), sitePathMax, func(p string) bool { return t.sitePathTaken(section, p, "") })
	t.spaces[ss.ID] = ss
	t.attach(treeRef{kindSiteSpace, ss.ID}, -1)
	return ss
}

// newSection adds a section at the end of the root holding one site space
// for sp.
func (t *siteTree) newSection(title string, icon *string, sp storage.Space) *storage.SiteSection {
	sec := &storage.SiteSection{ID: storage.NewID(), Title: title, Icon: icon}
	sec.Path = uniqueName(slug(title, "section", sitePathMax), sitePathMax, func(p string) bool { return t.sectionPathTaken(p, "") })
	t.sections[sec.ID] = sec
	t.attach(treeRef{kindSection, sec.ID}, -1)
	t.newSiteSpace(sp, &sec.ID)
	return sec
}

// gatherRootSpaces turns the root site spaces of a site without sections
// into its first section (the default), titled after the default site
// space's space; nothing to do when the root is empty or holds sections.
func (t *siteTree) gatherRootSpaces() {
	if t.hasSections() || len(t.root) == 0 {
		return
	}
	t.normalize()
	title := sectionTitleOf(t.spaces[*t.defaultSiteSpace].Space.Title)
	sec := &storage.SiteSection{ID: storage.NewID(), Title: title}
	sec.Path = slug(title, "section", sitePathMax)
	sec.DefaultSiteSpaceID = t.defaultSiteSpace
	members := t.root
	for _, ref := range members {
		t.spaces[ref.id].SectionID = &sec.ID
	}
	t.sections[sec.ID] = sec
	t.inSection[sec.ID] = members
	t.root = []treeRef{{kindSection, sec.ID}}
	t.defaultSection, t.defaultSiteSpace = &sec.ID, nil
}

// sectionTitleOf fits a space title to a section title (2 to 128).
func sectionTitleOf(title string) string {
	r := []rune(title)
	if len(r) > siteTitleMax {
		r = r[:siteTitleMax]
	}
	if len(r) < siteTitleMin {
		return "Section"
	}
	return string(r)
}

// move places item before or after sibling pointers (both: adjacent ones;
// neither: the end of its container). Pointers decide the container: a site
// space stays among its siblings; a section lands in the container of the
// section it points at (the root for a group pointer); a group stays at the
// root. Bad pointers are 400s naming field.
func (t *siteTree) move(item treeRef, before, after *treeRef, field string) error {
	if !t.exists(item) {
		return apierr.NotFound(item.kind)
	}
	dest, destSet := "", false
	var group *string // a section's destination group (nil: the root)
	for _, p := range []struct {
		ref  *treeRef
		name string
	}{{before, "before"}, {after, "after"}} {
		if p.ref == nil {
			continue
		}
		f := field + "." + p.name
		if !t.exists(*p.ref) {
			return apierr.Invalid(f, "no %s %q in this site", p.ref.kind, p.ref.id)
		}
		if *p.ref == item {
			return apierr.Invalid(f, "cannot point at the item being moved")
		}
		var d string
		var g *string
		switch item.kind {
		case kindSiteSpace:
			if p.ref.kind != kindSiteSpace || !samePtr(t.spaces[p.ref.id].SectionID, t.spaces[item.id].SectionID) {
				return apierr.Invalid(f, "must point at a site space of the same section")
			}
		case kindSection:
			switch p.ref.kind {
			case kindSection:
				g = t.sections[p.ref.id].GroupID
				d = deref(g)
			case kindGroup:
			default:
				return apierr.Invalid(f, "a section moves next to a section or a section group")
			}
		case kindGroup:
			if p.ref.kind == kindSiteSpace || p.ref.kind == kindSection && t.sections[p.ref.id].GroupID != nil {
				return apierr.Invalid(f, "a section group moves next to a section or a group at the root")
			}
		}
		if destSet && d != dest {
			return apierr.Invalid(field, "before and after must be siblings")
		}
		dest, destSet, group = d, true, g
	}
	t.detach(item)
	if destSet && item.kind == kindSection {
		t.sections[item.id].GroupID = group
	}
	list := *t.container(item)
	index := len(list)
	bi, ai := -1, -1
	if before != nil {
		bi = slices.Index(list, *before)
	}
	if after != nil {
		ai = slices.Index(list, *after)
	}
	switch {
	case before != nil && after != nil:
		if ai+1 != bi {
			return apierr.Invalid(field, "before and after must be adjacent siblings")
		}
		index = bi
	case before != nil:
		index = bi
	case after != nil:
		index = ai + 1
	}
	t.attach(item, index)
	return nil
}

// SpaceLeavesSite is a site's structure once a space left it, purged from
// the trash or transferred to another organization (storage runs it in
// that transaction: DB.OnSpaceLeavesSites). Its site spaces go; a section
// left without site spaces goes too (a section always holds one: the API
// refuses to empty it), and the rules of normalize follow: the successor
// rule for every default, a site left without sections loses its groups.
// A group left without sections stays, as when its last section is deleted.
func SpaceLeavesSite(st storage.SiteStructure, spaceID string) storage.SiteStructure {
	t := newSiteTree(st)
	emptied := map[string]bool{}
	for id, ss := range t.spaces {
		if ss.SpaceID == spaceID {
			if ss.SectionID != nil {
				emptied[*ss.SectionID] = true
			}
			t.removeSiteSpace(id)
		}
	}
	for id := range emptied {
		if len(t.inSection[id]) == 0 {
			t.removeSection(id)
		}
	}
	return t.plan()
}

// maxStructureRetries bounds the retries of a structure change that lost
// the race to another one.
const maxStructureRetries = 5

// structureLocks serialize the structure changes of a site within this
// process (striped by site id), so they do not race each other into
// retries; the version check still guards against other processes.
var structureLocks [64]sync.Mutex

func lockStructure(siteID string) (unlock func()) {
	h := fnv.New32a()
	h.Write([]byte(siteID))
	m := &structureLocks[h.Sum32()%uint32(len(structureLocks))]
	m.Lock()
	return m.Unlock
}

// editStructure reads a site's structure, applies edit and saves it,
// again when another change came first.
func (r *Resolver) editStructure(ctx context.Context, siteID string, edit func(t *siteTree) error) error {
	defer lockStructure(siteID)()
	for range maxStructureRetries {
		st, err := r.Store.SiteStructure(ctx, siteID)
		if err != nil {
			return notFoundAs(err, "site")
		}
		t := newSiteTree(st)
		if err := edit(t); err != nil {
			return err
		}
		err = r.Store.SaveSiteStructure(ctx, siteID, t.plan())
		if !errors.Is(err, storage.ErrStale) {
			return notFoundAs(err, "site")
		}
	}
	return apierr.Conflict("the site's structure kept changing; try again")
}

// checkCondition validates a condition being saved: length, that it parses
// as one JavaScript expression, and that it keeps to the condition
// language (conditions/allow.go); the 400 says where it does not.
func checkCondition(field, v string) error {
	if err := checkLen(field, v, 1, conditionMax); err != nil {
		return err
	}
	var se *conditions.SyntaxError
	var na *conditions.NotAllowedError
	switch err := conditions.Check(v); {
	case errors.As(err, &se):
		return apierr.Invalid(field, "does not parse as a JavaScript expression at line %d, column %d: %s", se.Line, se.Column, se.Message)
	case errors.As(err, &na):
		return apierr.Invalid(field, "is not allowed at line %d, column %d: %s", na.Line, na.Column, na.Message)
	case err != nil:
		return apierr.Invalid(field, "%v", err)
	}
	return nil
}

// conditionInput reads an optional, nullable condition: omitted leaves it
// (false), null removes it.
func conditionInput(field string, in omittableString) (set bool, v *string, err error) {
	v, set = in.ValueOK()
	if set && v != nil {
		err = checkCondition(field, *v)
	}
	return set, v, err
}

type omittableString interface{ ValueOK() (*string, bool) }

// ---- reading the structure as API models ----

// structureView turns stored structure rows into API models for one caller.
type structureView struct {
	r        *Resolver
	org      storage.Organization
	site     storage.Site
	shareKey *string
	role     func(storage.Space) int // the caller's role on a linked space
	// visible, when set, decides conditions (published reads); trashed
	// spaces are left out then too.
	visible func(condition *string) bool
}

// siteSpace is a site space as the view shows it. One whose space is in the
// trash stays where it is (with its default flag: it comes back as it was
// with a restore), is marked by its space's deletedAt and has no published
// URL: the published structure leaves it out.
func (v structureView) siteSpace(ss storage.SiteSpace, isDefault bool, section *storage.SiteSection) *model.SiteSpace {
	m := &model.SiteSpace{Object: "site-space", ID: ss.ID, Path: ss.Path, Section: ss.SectionID, Space: v.r.spaceModel(ss.Space, v.role(ss.Space)),
		Title: ss.Space.Title, Default: isDefault, Condition: ss.Condition, HasAdvancedCustomizationFeature: false,
		Urls: model.SiteSpaceURLs{Location: v.siteLocation() + "/site-spaces/" + ss.ID}}
	if v.site.Published && ss.Space.DeletedAt == nil {
		sectionPath := ""
		if section != nil && section.ID != deref(v.site.DefaultSectionID) {
			sectionPath = section.Path
		}
		m.Urls.Published = ptr(v.r.siteSpaceURL(v.org, v.site, ss, isDefault, section == nil, sectionPath, v.shareKey))
	}
	return m
}

// siteSpaceURL is a site space's published URL: the site's URL, then its
// section's path unless that is the site's default section, then its own
// path unless it is its section's (or the site's) default. Without a
// section model (fromRow), the section path and default flag of the
// stored row decide.
func (r *Resolver) siteSpaceURL(org storage.Organization, site storage.Site, ss storage.SiteSpace, isDefault, fromRow bool, sectionPath string, shareKey *string) string {
	if fromRow && ss.SectionID != nil && !ss.SectionDefault {
		sectionPath = ss.SectionPath
	}
	spacePath := ""
	if !isDefault {
		spacePath = ss.Path
	}
	return publishedURL(r.siteURL(org, site), shareKey, sectionPath, spacePath)
}

// spaceURL is the published URL of spaceID's (first) site space in st, nil
// when it has none.
func (v structureView) spaceURL(st storage.SiteStructure, spaceID string) *string {
	for _, ss := range st.SiteSpaces {
		if ss.SpaceID == spaceID {
			if it, err := v.item(st, treeRef{kindSiteSpace, ss.ID}); err == nil {
				return it.(*model.SiteSpace).Urls.Published
			}
			return nil
		}
	}
	return nil
}

// siteLocation is the API URL of the view's site.
func (v structureView) siteLocation() string {
	return v.r.Config.PublicURL + "/v1/orgs/" + v.org.ID + "/sites/" + v.site.ID
}

// section is a section with its site spaces; it has a published URL while
// one of them is not in the trash (otherwise the published structure
// leaves it out).
func (v structureView) section(sec storage.SiteSection, spaces []storage.SiteSpace) *model.SiteSection {
	m := &model.SiteSection{Object: "site-section", ID: sec.ID, Title: sec.Title, Description: sec.Description,
		Default: sec.ID == deref(v.site.DefaultSectionID), Path: sec.Path, Condition: sec.Condition, SectionGroup: sec.GroupID,
		SiteSpaces: []*model.SiteSpace{}, Icon: sec.Icon, Urls: model.SiteSectionURLs{Location: v.siteLocation() + "/sections/" + sec.ID}}
	live := slices.ContainsFunc(spaces, func(ss storage.SiteSpace) bool { return ss.Space.DeletedAt == nil })
	if v.site.Published && live {
		path := sec.Path
		if m.Default {
			path = ""
		}
		m.Urls.Published = ptr(publishedURL(v.r.siteURL(v.org, v.site), v.shareKey, path))
	}
	def := deref(sec.DefaultSiteSpaceID)
	var shown []storage.SiteSpace
	for _, ss := range spaces {
		if v.visible == nil || (ss.Space.DeletedAt == nil && v.visible(ss.Condition)) {
			shown = append(shown, ss)
		}
	}
	if len(shown) > 0 && !slices.ContainsFunc(shown, func(ss storage.SiteSpace) bool { return ss.ID == def }) {
		def = shown[0].ID // the default is hidden: the first shown stands in
	}
	for _, ss := range shown {
		m.SiteSpaces = append(m.SiteSpaces, v.siteSpace(ss, ss.ID == def, &sec))
	}
	return m
}

func (v structureView) group(g storage.SiteSectionGroup, sections []*model.SiteSection) *model.SiteSectionGroup {
	if sections == nil {
		sections = []*model.SiteSection{}
	}
	return &model.SiteSectionGroup{Object: "site-section-group", ID: g.ID, Title: g.Title, Icon: g.Icon, Sections: sections,
		Urls: model.SiteSectionGroupURLs{Location: v.siteLocation() + "/section-groups/" + g.ID}}
}

// structure builds the whole structure in stored order; with visible set,
// hidden sections and site spaces are left out, and so are sections left
// without site spaces and groups left without sections.
func (v structureView) structure(st storage.SiteStructure) *model.SiteStructure {
	t := newSiteTree(st)
	out := &model.SiteStructure{Type: "siteSpaces", Structure: []model.SiteStructureItem{}}
	if !t.hasSections() {
		var rows []storage.SiteSpace
		for _, ref := range t.root {
			rows = append(rows, *t.spaces[ref.id])
		}
		root := v.section(storage.SiteSection{DefaultSiteSpaceID: st.DefaultSiteSpaceID}, rows)
		for _, ss := range root.SiteSpaces {
			ss.Section = nil
			out.Structure = append(out.Structure, ss)
		}
		// The root is no section: its URLs carry no section path.
		return out
	}
	out.Type = "sections"
	section := func(id string) *model.SiteSection {
		sec := t.sections[id]
		if v.visible != nil && !v.visible(sec.Condition) {
			return nil
		}
		var rows []storage.SiteSpace
		for _, ref := range t.inSection[id] {
			rows = append(rows, *t.spaces[ref.id])
		}
		m := v.section(*sec, rows)
		if v.visible != nil && len(m.SiteSpaces) == 0 {
			return nil
		}
		return m
	}
	for _, ref := range t.root {
		switch ref.kind {
		case kindSection:
			if m := section(ref.id); m != nil {
				out.Structure = append(out.Structure, m)
			}
		case kindGroup:
			var members []*model.SiteSection
			for _, m := range t.inGroup[ref.id] {
				if sm := section(m.id); sm != nil {
					members = append(members, sm)
				}
			}
			if v.visible != nil && len(members) == 0 {
				continue
			}
			out.Structure = append(out.Structure, v.group(*t.groups[ref.id], members))
		}
	}
	return out
}

// itemModel is one structure item read back after a change.
func (v structureView) item(st storage.SiteStructure, ref treeRef) (model.SiteStructureItem, error) {
	t := newSiteTree(st)
	sectionModel := func(id string) *model.SiteSection {
		var rows []storage.SiteSpace
		for _, r := range t.inSection[id] {
			rows = append(rows, *t.spaces[r.id])
		}
		return v.section(*t.sections[id], rows)
	}
	switch ref.kind {
	case kindSiteSpace:
		ss, ok := t.spaces[ref.id]
		if !ok {
			return nil, apierr.NotFound("site space")
		}
		isDefault := deref(st.DefaultSiteSpaceID) == ss.ID
		if ss.SectionID != nil {
			isDefault = deref(t.sections[*ss.SectionID].DefaultSiteSpaceID) == ss.ID
			return v.siteSpace(*ss, isDefault, t.sections[*ss.SectionID]), nil
		}
		return v.siteSpace(*ss, isDefault, nil), nil
	case kindSection:
		if t.sections[ref.id] == nil {
			return nil, apierr.NotFound("site section")
		}
		return sectionModel(ref.id), nil
	default:
		g, ok := t.groups[ref.id]
		if !ok {
			return nil, apierr.NotFound("site section group")
		}
		var members []*model.SiteSection
		for _, m := range t.inGroup[ref.id] {
			members = append(members, sectionModel(m.id))
		}
		return v.group(*g, members), nil
	}
}

// managementView is the structure as an organization member sees it: the
// linked spaces with the caller's permissions.
func (r *Resolver) managementView(ctx context.Context, s orgScope, site storage.Site, shareKey *string) (structureView, error) {
	a, err := r.accessOf(ctx, s.Caller, s.Org.ID, s.Caller.UserID, nil)
	if err != nil {
		return structureView{}, err
	}
	return structureView{r: r, org: s.Org, site: site, shareKey: shareKey, role: a.spaceRole}, nil
}

// structureItem reads one item back after a change, as the caller sees it.
func (r *Resolver) structureItem(ctx context.Context, s orgScope, siteID string, ref treeRef) (model.SiteStructureItem, error) {
	site, err := r.Store.Site(ctx, s.Org.ID, siteID)
	if err != nil {
		return nil, notFoundAs(err, "site")
	}
	st, err := r.Store.SiteStructure(ctx, siteID)
	if err != nil {
		return nil, notFoundAs(err, "site")
	}
	v, err := r.managementView(ctx, s, site, nil)
	if err != nil {
		return nil, err
	}
	return v.item(st, ref)
}

// pointerRef converts a structure pointer, checking its type.
func pointerRef(field string, p *model.SiteStructurePointerInput) (*treeRef, error) {
	if p == nil {
		return nil, nil
	}
	if err := checkEnum(field+".type", p.Type, model.SiteStructurePointerTypes.List()); err != nil {
		return nil, err
	}
	return &treeRef{string(p.Type), p.ID}, nil
}

// sortStructure is the one ordering operation.
func (r *Resolver) sortStructure(ctx context.Context, orgID, siteID string, item model.SiteStructurePointerInput, pos model.SiteStructurePositionInput) (model.SiteStructureItem, error) {
	s, _, err := r.siteScope(ctx, orgID, siteID, "create", "changing a site's structure")
	if err != nil {
		return nil, err
	}
	ref, err := pointerRef("item", &item)
	if err != nil {
		return nil, err
	}
	before, err := pointerRef("position.before", pos.Before)
	if err != nil {
		return nil, err
	}
	after, err := pointerRef("position.after", pos.After)
	if err != nil {
		return nil, err
	}
	if err := r.editStructure(ctx, siteID, func(t *siteTree) error { return t.move(*ref, before, after, "position") }); err != nil {
		return nil, err
	}
	return r.structureItem(ctx, s, siteID, *ref)
}

// joinGroup moves a section to the end of a group.
func (t *siteTree) joinGroup(sectionID, groupID string) {
	ref := treeRef{kindSection, sectionID}
	t.detach(ref)
	t.sections[sectionID].GroupID = &groupID
	t.attach(ref, -1)
}

// pointerKinds refuses pointer types a deprecated move does not take.
// deprecatedMove is the one path of the three deprecated moves (site space,
// section, group): their position may only name the kinds given, then the
// structure sort does the move.
func (r *Resolver) deprecatedMove(ctx context.Context, orgID, siteID string, item model.SiteStructurePointerInput, pos model.SiteStructurePositionInput, kinds ...string) (model.SiteStructureItem, error) {
	if err := pointerKinds(pos, kinds...); err != nil {
		return nil, err
	}
	return r.sortStructure(ctx, orgID, siteID, item, pos)
}

func pointerKinds(pos model.SiteStructurePositionInput, kinds ...string) error {
	for name, p := range map[string]*model.SiteStructurePointerInput{"position.before": pos.Before, "position.after": pos.After} {
		if p != nil && !slices.Contains(kinds, string(p.Type)) {
			return apierr.Invalid(name+".type", "must be %s (got %q)", strings.Join(kinds, " or "), string(p.Type))
		}
	}
	return nil
}

// structureSpace checks the caller may change the site's structure and
// reads a space (field of the body) they can see in the organization.
func (r *Resolver) structureSpace(ctx context.Context, orgID, siteID, field, spaceID string) (orgScope, storage.Space, error) {
	s, _, err := r.siteScope(ctx, orgID, siteID, "create", "changing a site's structure")
	if err != nil {
		return s, storage.Space{}, err
	}
	if err := checkLen(field, spaceID, 1, 0); err != nil {
		return s, storage.Space{}, err
	}
	a, err := r.accessOf(ctx, s.Caller, orgID, s.Caller.UserID, nil)
	if err != nil {
		return s, storage.Space{}, err
	}
	sp, err := r.visibleSpace(ctx, a, orgID, field, spaceID)
	return s, sp, err
}

// structureReader is who reads a structure or its lists: a member with
// READ, or (lists only, byShareKey) anyone holding an active share key of
// the published site, who reads as its audience (linked spaces read-only).
// A given share key must be valid either way; published URLs carry it.
func (r *Resolver) structureReader(ctx context.Context, orgID, siteID string, shareKey *string, byShareKey bool) (structureView, error) {
	if shareKey != nil && byShareKey {
		if s, site, err := r.siteScope(ctx, orgID, siteID, "read", "reading sites"); err == nil {
			if err := r.checkShareKey(ctx, site, shareKey); err != nil {
				return structureView{}, err
			}
			return r.managementView(ctx, s, site, shareKey)
		}
		s, site, err := r.shareKeyReader(ctx, orgID, siteID, *shareKey)
		if err != nil {
			return structureView{}, err
		}
		return structureView{r: r, org: s.Org, site: site, shareKey: shareKey, role: func(storage.Space) int { return roleRank["read"] }}, nil
	}
	s, site, err := r.siteScope(ctx, orgID, siteID, "read", "reading sites")
	if err != nil {
		return structureView{}, err
	}
	if err := r.checkShareKey(ctx, site, shareKey); err != nil {
		return structureView{}, err
	}
	return r.managementView(ctx, s, site, shareKey)
}

// Typed answers of the structure mutations.

func siteSpaceItem(it model.SiteStructureItem, err error) (*model.SiteSpace, error) {
	if err != nil {
		return nil, err
	}
	return it.(*model.SiteSpace), nil
}

func sectionItem(it model.SiteStructureItem, err error) (*model.SiteSection, error) {
	if err != nil {
		return nil, err
	}
	return it.(*model.SiteSection), nil
}

func groupItem(it model.SiteStructureItem, err error) (*model.SiteSectionGroup, error) {
	if err != nil {
		return nil, err
	}
	return it.(*model.SiteSectionGroup), nil
}
