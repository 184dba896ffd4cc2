package refengine

import (
	"net/http"
	"slices"
)

// surfaceDef is one API the engine serves, as the client's protocols are registered
// (harness/capacity/internal/stream/protocol.go): its path, how a request on it is read
// into a genRequest the rest of the engine serves, its stream's media type and how its
// stream is written. Each surface's file registers its own (registerSurface, from init);
// the handler, the reader and the generator ask the registry and name none.
type surfaceDef struct {
	path string
	// read reads a request's body; nil reads chat's JSON (readRequest).
	read func(s *Server, w http.ResponseWriter, r *http.Request, api surface) (genRequest, error)
	// ndjson streams a JSON object a line, not server-sent events; legacy takes a plain
	// prompt and answers text completions.
	ndjson, legacy bool
	// encoder writes a streamed answer of run g, the request's index'th.
	encoder func(g *run, index int) encoder
}

// surfaces are the registered surfaces, by their constant.
var surfaces = map[surface]surfaceDef{}

func registerSurface(api surface, d surfaceDef) { surfaces[api] = d }

// handleSurfaces routes each registered surface's path to its handler, in a fixed order.
func (s *Server) handleSurfaces(mux *http.ServeMux) {
	apis := make([]surface, 0, len(surfaces))
	for api := range surfaces {
		apis = append(apis, api)
	}
	slices.Sort(apis)
	for _, api := range apis {
		mux.HandleFunc(surfaces[api].path, s.handleGenerate(api))
	}
}

// readGeneration reads a generation request on api.
func (s *Server) readGeneration(w http.ResponseWriter, r *http.Request, api surface) (genRequest, error) {
	if read := surfaces[api].read; read != nil {
		return read(s, w, r, api)
	}
	var req genRequest
	if ae := s.readRequest(w, r, &req, &req.Model); ae != nil {
		return genRequest{}, ae
	}
	return req, nil
}
