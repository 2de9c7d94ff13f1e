package kafka

import (
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ApiVersions (key 18), v0-v2 (v3+ is flexible: see the package doc).
//
// Behavior:
//   - answered by the listener itself, never by the broker: every API of
//     the table (versions.go) with its advertised range;
//   - KIP-511: a version above v2 (kgo starts at v4 or v5, librdkafka at
//     v3) is answered at v0 with UNSUPPORTED_VERSION and key 18's own
//     range only, without reading its body, so the client sends
//     ApiVersions again at a version it shares; the response header of
//     key 18 carries no tagged fields at any version, so that an old
//     reader can parse it.

func init() {
	regKey(&api{key: apiVersionsKey, name: "ApiVersions", min: 0, max: 2, decode: decodeAPIVersions})
}

func decodeAPIVersions(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	resp := kmsg.NewPtrApiVersionsResponse()
	for _, a := range apis {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	st.local = resp
	return nil, errLocal
}

// unsupportedAPIVersions is KIP-511's answer to an ApiVersions version the
// listener does not speak.
func unsupportedAPIVersions() kmsg.Response {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.ErrorCode = kafkaCode(wire.CodeUnsupportedVersion)
	a := apiFor(apiVersionsKey)
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
	resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{k}
	return resp
}
