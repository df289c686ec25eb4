package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// answerPOST is gqlgen's POST transport (transport.POST) for the requests
// that take application/json back, writing the answer's data as the
// executor encoded it. gqlgen's transport passes the whole response to
// json.Marshal, which re-scans the encoded data byte by byte (a
// json.RawMessage is validated and compacted again with json's scanner):
// 91 KB for the docs page view, a few percent of the request's CPU, for
// bytes the executor's own encoders wrote valid. The answer is byte for
// byte the one gqlgen's transport writes (TestAnswerPOSTWritesAsGqlgen):
// writeCompact drops whitespace and escapes <, > and & as json.Marshal
// does, in one plain pass. Builds with the
// race detector (make test) still check every answer is valid JSON
// (checkAnswers), so an encoder writing broken JSON fails the tests as it
// failed gqlgen's transport. Other Accept types go to transport.POST.
type answerPOST struct{}

var _ graphql.Transport = answerPOST{}

func (answerPOST) Supports(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get("Upgrade") != "" {
		return false
	}
	switch r.Header.Get("Accept") { // the ones transport.POST answers with application/json
	case "", "application/json", "*/*":
	default:
		return false
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == "application/json"
}

func (answerPOST) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	w.Header().Set("Content-Type", "application/json")
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeAnswer(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("could not read request body: %+v", err)}))
		return
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		// readPost (graphqlfast.go) refuses such bodies before this; the
		// same answer as gqlgen's anyway.
		w.WriteHeader(http.StatusBadRequest)
		writeAnswer(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("json request body could not be decoded: %+v body:%s", err, body)}))
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	oc, opErr := exec.CreateOperationContext(ctx, &params)
	if opErr != nil {
		if errcode.GetErrorKind(opErr) == errcode.KindProtocol {
			w.WriteHeader(http.StatusUnprocessableEntity)
		}
		writeAnswer(w, exec.DispatchError(graphql.WithOperationContext(ctx, oc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	writeAnswer(w, responses(ctx))
}

// checkAnswers validates each answer's data before it is written (set in
// builds with the race detector, graphqlanswer_race.go).
var checkAnswers = false

// writeAnswer writes resp as json.Marshal does, the data as encoded.
func writeAnswer(w io.Writer, resp *graphql.Response) {
	if resp == nil {
		resp = &graphql.Response{}
	}
	if checkAnswers && len(resp.Data) > 0 && !json.Valid(resp.Data) {
		panic(fmt.Errorf("unable to marshal %s: invalid JSON", resp.Data))
	}
	// Everything but data is small: encoded by json.Marshal, the data left
	// out of it and written in its place (the second field of Response).
	head, tail := *resp, *resp
	head.Label, head.Path, head.HasNext, head.Extensions, head.Data = "", nil, nil, nil, nil
	tail.Errors, tail.Data = nil, nil
	var out bytes.Buffer
	out.Grow(len(resp.Data) + 64)
	if len(head.Errors) > 0 {
		errs, err := json.Marshal(head.Errors)
		if err != nil {
			panic(fmt.Errorf("unable to marshal the errors: %w", err))
		}
		out.WriteString(`{"errors":`)
		out.Write(errs)
		out.WriteString(`,"data":`)
	} else {
		out.WriteString(`{"data":`)
	}
	if len(resp.Data) == 0 {
		out.WriteString("null")
	} else {
		writeCompact(&out, resp.Data)
	}
	rest, err := json.Marshal(tail) // {"data":null,...}
	if err != nil {
		panic(fmt.Errorf("unable to marshal the answer's extensions: %w", err))
	}
	out.Write(rest[len(`{"data":null`):])
	w.Write(out.Bytes())
}

// writeCompact writes encoded JSON as json.Marshal writes a
// json.RawMessage: without the whitespace between tokens (gqlgen's JSON
// scalar ends with a newline) and with <, >, &, U+2028 and U+2029 escaped
// (in valid JSON they are only ever inside strings). One pass over the
// bytes, without json's scanner: the data is valid JSON as the executor's
// encoders wrote it (checkAnswers checks that in the tests).
func writeCompact(out *bytes.Buffer, data []byte) {
	const hex = "0123456789abcdef"
	start, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case c == '\\':
				i++ // the escaped byte is never a quote that ends the string
			case c == '"':
				inString = false
			case c == '<' || c == '>' || c == '&':
				out.Write(data[start:i])
				out.WriteString(`\u00`)
				out.WriteByte(hex[c>>4])
				out.WriteByte(hex[c&0xf])
				start = i + 1
			case c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && data[i+2]&^1 == 0xA8:
				out.Write(data[start:i])
				out.WriteString(`\u202`)
				out.WriteByte(hex[data[i+2]&0xf])
				i += 2
				start = i + 1
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\n', '\t', '\r':
			out.Write(data[start:i])
			start = i + 1
		}
	}
	out.Write(data[start:])
}
