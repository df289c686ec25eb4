package graph

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"unicode/utf8"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Limits of revision variables (reference: values are string[..256],
// number or boolean).
const (
	maxVariables     = 100
	maxVariableValue = 256
)

var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// setSpaceVariables merges changes into the variables of the space's
// active revision (a nil value removes a name) as a new active revision.
func (r *Resolver) setSpaceVariables(ctx context.Context, spaceID string, changes map[string]any) (*model.SpaceVariablesChange, error) {
	cs, err := r.contentSpace(ctx, spaceID, true)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(changes))
	for name := range changes {
		names = append(names, name)
	}
	sort.Strings(names) // the first bad name or value, in a stable order
	for _, name := range names {
		if err := checkVariable(name, changes[name]); err != nil {
			return nil, err
		}
	}
	var result map[string]any
	rev, err := r.writeRevision(ctx, cs, func(t *storage.Tree) error {
		vars := map[string]any{}
		for k, v := range t.Variables {
			vars[k] = v
		}
		for _, name := range names {
			if v := changes[name]; v == nil {
				delete(vars, name)
			} else {
				vars[name] = v
			}
		}
		if len(vars) > maxVariables {
			return apierr.Invalid("variables", "a space has at most %d variables", maxVariables)
		}
		t.Variables, result = vars, vars
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &model.SpaceVariablesChange{Revision: rev, Variables: result}, nil
}

// checkVariable validates one name and value (nil: a removal).
func checkVariable(name string, v any) error {
	field := "variables." + name
	if !variableName.MatchString(name) {
		return apierr.Invalid(field, "a name is a letter or _ followed by up to 63 letters, digits, _ or -")
	}
	switch x := v.(type) {
	case nil, bool, int, int32, int64, float64, json.Number:
	case string:
		if utf8.RuneCountInString(x) > maxVariableValue {
			return apierr.Invalid(field, "must be at most %d characters", maxVariableValue)
		}
	default:
		return apierr.Invalid(field, "must be a string, a number, a boolean or null (to remove it)")
	}
	return nil
}
