package model

// StorageFileMetadataInput describes a file about to be uploaded.
type StorageFileMetadataInput struct {
	Name string  `json:"name"`
	Type string  `json:"type"`
	Size float64 `json:"size"`
}

// StorageUploadInput is generateStorageUploadURL's body.
type StorageUploadInput struct {
	File StorageFileMetadataInput `json:"file"`
	Kind string                   `json:"kind"`
}

// StorageUploadURL is where to PUT the file: a signed, expiring URL on the
// service itself, and the key naming the upload.
type StorageUploadURL struct {
	Object string `json:"object"`
	URL    string `json:"url"`
	Key    string `json:"key"`
}

// StorageUploadKinds are the kinds of upload: 0.130.0's customization_font,
// and import (a docsapi extension: a Markdown file, zip or HTML page to
// import into a space).
var StorageUploadKinds = []string{"customization_font", "import"}
