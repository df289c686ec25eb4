package model

import "io"

// Revision is an immutable snapshot of a space's content.
type Revision struct {
	Object           string           `json:"object"`
	ID               string           `json:"id"`
	Type             string           `json:"type"`
	Parents          []string         `json:"parents"`
	Pages            []*RevisionPage  `json:"pages"`
	Files            []*RevisionFile  `json:"files"`
	ReusableContents []map[string]any `json:"reusableContents"`
	Variables        map[string]any   `json:"variables"`
	CreatedAt        string           `json:"createdAt"`
	Urls             RevisionUrls     `json:"urls"`
	Git              *RevisionGit     `json:"git,omitempty"`
	// MergedFrom: merge revisions only, the change request merged.
	MergedFrom *ChangeRequest `json:"mergedFrom,omitempty"`
}

// RevisionUrls: published and public are set while a published site holds
// the space (published unless the space is private, public only when it is
// public), as 0.130.0 declares them.
type RevisionUrls struct {
	App       string  `json:"app"`
	Published *string `json:"published,omitempty"`
	Public    *string `json:"public,omitempty"`
}

// RevisionGit is the Git commit a revision came from (0.130.0
// GitSyncCommit): set on revisions a Git Sync import wrote or an export pushed.
type RevisionGit struct {
	Oid     string `json:"oid"`
	Message string `json:"message"`
	// CreatedByService is the specification's name for "this commit was
	// made by an export"; CreatedByGitBook, 0.130.0's required name for the
	// same fact, is answered too so that both kinds of client read it.
	CreatedByService bool    `json:"createdByService"`
	CreatedByGitBook bool    `json:"createdByGitBook"`
	URL              *string `json:"url,omitempty"`
	Ref              *string `json:"ref,omitempty"`
}

// RevisionPage is a page of a revision: document, group or link. Fields
// that do not apply to a type are absent.
type RevisionPage struct {
	ID            string          `json:"id"`
	Title         string          `json:"title"`
	Emoji         *string         `json:"emoji,omitempty"`
	Icon          *string         `json:"icon,omitempty"`
	CreatedAt     *string         `json:"createdAt,omitempty"`
	UpdatedAt     *string         `json:"updatedAt,omitempty"`
	Kind          string          `json:"kind,omitempty"`
	Type          PageType        `json:"type"`
	Markdown      *string         `json:"markdown,omitempty"`
	Document      any             `json:"document,omitempty"`
	Urls          *PageUrls       `json:"urls,omitempty"`
	Slug          *string         `json:"slug,omitempty"`
	Path          *string         `json:"path,omitempty"`
	Description   *string         `json:"description,omitempty"`
	Pages         []*RevisionPage `json:"pages,omitzero"`
	Layout        *PageLayout     `json:"layout,omitempty"`
	Cover         map[string]any  `json:"cover,omitempty"`
	Variables     map[string]any  `json:"variables,omitempty"`
	Hidden        *bool           `json:"hidden,omitempty"`
	NoIndex       *bool           `json:"noIndex,omitempty"`
	NoRobotsIndex *bool           `json:"noRobotsIndex,omitempty"`
	Target        map[string]any  `json:"target,omitempty"`
	Href          *string         `json:"href,omitempty"`
	Computed      map[string]any  `json:"computed,omitempty"`
}

type PageUrls struct {
	App string `json:"app"`
}

type PageLayout struct {
	Width           PageWidth     `json:"width"`
	Cover           bool          `json:"cover"`
	CoverSize       PageCoverSize `json:"coverSize"`
	Title           bool          `json:"title"`
	Description     bool          `json:"description"`
	TableOfContents bool          `json:"tableOfContents"`
	Outline         bool          `json:"outline"`
	Pagination      bool          `json:"pagination"`
	Metadata        bool          `json:"metadata"`
}

type PageList struct {
	Pages []*RevisionPage `json:"pages"`
}

type RevisionFile struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	ContentType string          `json:"contentType"`
	DownloadURL string          `json:"downloadURL"`
	Size        int             `json:"size"`
	Dimensions  *FileDimensions `json:"dimensions,omitempty"`
}

type FileDimensions struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

type RevisionFileList List[*RevisionFile]

// ContentLocation is an absolute reference to content, as 0.130.0 shapes
// it: the organization, space, page, file and collection objects (not ids),
// the version it was read in, or the URL.
type ContentLocation struct {
	Kind           string          `json:"kind"`
	Organization   *Organization   `json:"organization,omitempty"`
	Space          *Space          `json:"space,omitempty"`
	VersionContext *VersionContext `json:"versionContext,omitempty"`
	Page           *RevisionPage   `json:"page,omitempty"`
	File           *RevisionFile   `json:"file,omitempty"`
	Collection     *Collection     `json:"collection,omitempty"`
	URL            *string         `json:"url,omitempty"`
}

// VersionContext is the version a location was read in: type `revision`
// with the revision, or `changeRequest` with the change request.
type VersionContext struct {
	Type          string         `json:"type"`
	Revision      *Revision      `json:"revision,omitempty"`
	ChangeRequest *ChangeRequest `json:"changeRequest,omitempty"`
}

type ContentLocationList List[*ContentLocation]

// ContentReferenceUsage is one link target and the pages linking to it.
type ContentReferenceUsage struct {
	Status             LinkStatus         `json:"status"`
	Relation           string             `json:"relation"`
	TargetReference    *ContentLocation   `json:"targetReference,omitempty"`
	LocationReferences []*ContentLocation `json:"locationReferences"`
}

type ContentReferencesStats struct {
	Total  int               `json:"total"`
	Broken BrokenLinksTotals `json:"broken"`
}

type BrokenLinksTotals struct {
	Total int `json:"total"`
}

type LinkList struct {
	Next  *Next                    `json:"next,omitempty"`
	Count int                      `json:"count"`
	Items []*ContentReferenceUsage `json:"items"`
	Stats ContentReferencesStats   `json:"stats"`
}

type ImportContentInput struct {
	URL    string       `json:"url"`
	Source ImportSource `json:"source"`
}

type ImportContentResult struct {
	Revision          string `json:"revision"`
	ImportedResources int    `json:"importedResources"`
	TotalResources    int    `json:"totalResources"`
}

type ApplyTemplateInput struct {
	ID     string         `json:"id"`
	Params map[string]any `json:"params,omitempty"`
}

type ContentTemplate struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// ContentTarget names the content a change applies to: a space's main
// content now; a change request's content once change requests exist.
type ContentTarget struct {
	Space         *string `json:"space,omitempty"`
	ChangeRequest *string `json:"changeRequest,omitempty"`
}

type CreatePageInput struct {
	Title       string         `json:"title"`
	Type        *PageType      `json:"type,omitempty"`
	Parent      *string        `json:"parent,omitempty"`
	Index       *int           `json:"index,omitempty"`
	Slug        *string        `json:"slug,omitempty"`
	Emoji       *string        `json:"emoji,omitempty"`
	Icon        *string        `json:"icon,omitempty"`
	Description *string        `json:"description,omitempty"`
	Markdown    *string        `json:"markdown,omitempty"`
	Hidden      *bool          `json:"hidden,omitempty"`
	Target      map[string]any `json:"target,omitempty"`
	Computed    map[string]any `json:"computed,omitempty"`
	Layout      map[string]any `json:"layout,omitempty"`
	Cover       map[string]any `json:"cover,omitempty"`
	Variables   map[string]any `json:"variables,omitempty"`
}

type UpdatePageInput struct {
	Title         *string `json:"title,omitempty"`
	Slug          *string `json:"slug,omitempty"`
	Emoji         *string `json:"emoji,omitempty"`
	Icon          *string `json:"icon,omitempty"`
	Description   *string `json:"description,omitempty"`
	Markdown      *string `json:"markdown,omitempty"`
	Hidden        *bool   `json:"hidden,omitempty"`
	NoIndex       *bool   `json:"noIndex,omitempty"`
	NoRobotsIndex *bool   `json:"noRobotsIndex,omitempty"`

	// Computed replaces a computed page's source.
	Computed map[string]any `json:"computed,omitempty"`

	Layout    map[string]any `json:"layout,omitempty"`
	Cover     map[string]any `json:"cover,omitempty"`
	Variables map[string]any `json:"variables,omitempty"`
}

type MovePageInput struct {
	Parent *string `json:"parent,omitempty"`
	Index  *int    `json:"index,omitempty"`
}

type UploadFileInput struct {
	Name        string  `json:"name"`
	ContentType *string `json:"contentType,omitempty"`
	Data        string  `json:"data"`
}

// ContentChange is the answer of a content mutation: the new revision and
// the page or file it touched.
type ContentChange struct {
	Revision string        `json:"revision"`
	Page     *RevisionPage `json:"page,omitempty"`
	File     *RevisionFile `json:"file,omitempty"`
}

// PageType is a page's type.
type PageType string

var PageTypes = newEnum[PageType]("document", "group", "link", "computed")

func (v PageType) MarshalGQL(w io.Writer)     { PageTypes.marshal(w, v) }
func (v *PageType) UnmarshalGQL(in any) error { return PageTypes.unmarshal(in, v) }
func (v PageType) IsValid() bool              { return PageTypes.valid[v] }

type PageWidth string

var PageWidths = newEnum[PageWidth]("default", "wide")

func (v PageWidth) MarshalGQL(w io.Writer)     { PageWidths.marshal(w, v) }
func (v *PageWidth) UnmarshalGQL(in any) error { return PageWidths.unmarshal(in, v) }
func (v PageWidth) IsValid() bool              { return PageWidths.valid[v] }

type PageCoverSize string

var PageCoverSizes = newEnum[PageCoverSize]("hero", "full")

func (v PageCoverSize) MarshalGQL(w io.Writer)     { PageCoverSizes.marshal(w, v) }
func (v *PageCoverSize) UnmarshalGQL(in any) error { return PageCoverSizes.unmarshal(in, v) }
func (v PageCoverSize) IsValid() bool              { return PageCoverSizes.valid[v] }

// PageFormat is the body format of a single-page read.
type PageFormat string

var PageFormats = newEnum[PageFormat]("document", "markdown")

func (v PageFormat) MarshalGQL(w io.Writer)     { PageFormats.marshal(w, v) }
func (v *PageFormat) UnmarshalGQL(in any) error { return PageFormats.unmarshal(in, v) }
func (v PageFormat) IsValid() bool              { return PageFormats.valid[v] }

// LinkStatus is a link's state in a revision.
type LinkStatus string

var LinkStatuses = newEnum[LinkStatus]("ok", "broken", "in-app")

func (v LinkStatus) MarshalGQL(w io.Writer)     { LinkStatuses.marshal(w, v) }
func (v *LinkStatus) UnmarshalGQL(in any) error { return LinkStatuses.unmarshal(in, v) }
func (v LinkStatus) IsValid() bool              { return LinkStatuses.valid[v] }

// ImportSource is where imported content comes from.
type ImportSource string

var ImportSources = newEnum[ImportSource]("website", "docx", "markdown", "html", "zip", "confluence", "github-wiki", "notion", "google-docs")

func (v ImportSource) MarshalGQL(w io.Writer)     { ImportSources.marshal(w, v) }
func (v *ImportSource) UnmarshalGQL(in any) error { return ImportSources.unmarshal(in, v) }
func (v ImportSource) IsValid() bool              { return ImportSources.valid[v] }
