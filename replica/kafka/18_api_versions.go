package kafka

import (
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ApiVersions (key 18), v0-v4.
//
// Behavior:
//   - answered by the listener itself, never by the broker: every API of
//     the table (versions.go) with its advertised range;
//   - KIP-511: a version above v4 (kgo starts at v5) is answered at v0
//     with UNSUPPORTED_VERSION and key 18's own range only, without
//     reading its body, so the client sends ApiVersions again at a
//     version it shares; the response header of key 18 carries no tagged
//     fields at any version, so that an old reader can parse it;
//   - v3+ (flexible): ClientSoftwareName and ClientSoftwareVersion are
//     checked as Kafka checks them (ApiVersionsRequest.isValid: each
//     [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?) and otherwise
//     ignored; one that does not match is answered INVALID_REQUEST with
//     no keys, as Kafka answers it;
//   - no SupportedFeatures or FinalizedFeatures (KIP-584): kaenlog
//     finalizes none, so v4's fix (a feature whose MinVersion is 0,
//     KAFKA-17011) changes nothing here;
//   - v5 (KIP-1242: ClusterID and NodeID, REBOOTSTRAP_REQUIRED when they
//     name another cluster or broker) is not advertised: wire's error
//     table has no REBOOTSTRAP_REQUIRED.

func init() {
	regKey(&api{key: apiVersionsKey, name: "ApiVersions", min: 0, max: 4, decode: decodeAPIVersions, shape: apiVersionsShape})
}

// apiVersionsShape is an ApiVersions request's layout, v0-v4 (kmsg's
// ApiVersionsRequest): from v3, ClientSoftwareName and
// ClientSoftwareVersion.
func apiVersionsShape(version int16, flexible bool) shape {
	if version < 3 {
		return nil
	}
	return append(shape{str, str}, tagsIf(flexible)...)
}

func decodeAPIVersions(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ApiVersionsRequest)
	resp := kmsg.NewPtrApiVersionsResponse()
	st.local = resp
	if st.version >= 3 && (!validSoftware(kr.ClientSoftwareName) || !validSoftware(kr.ClientSoftwareVersion)) {
		resp.ErrorCode = kafkaCode(wire.CodeInvalidRequest)
		return nil, errLocal
	}
	for _, a := range apis {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return nil, errLocal
}

// validSoftware reports whether s matches Kafka's pattern for a client's
// software name and version, [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?:
// not empty, letters, digits, '-' and '.', beginning and ending with a
// letter or digit.
func validSoftware(s string) bool {
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !alnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
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
