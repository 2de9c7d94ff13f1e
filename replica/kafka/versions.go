package kafka

import (
	"slices"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The API keys the listener serves.
const (
	produceKey                     int16 = 0
	fetchKey                       int16 = 1
	listOffsetsKey                 int16 = 2
	metadataKey                    int16 = 3
	apiVersionsKey                 int16 = 18
	createTopicsKey                int16 = 19
	deleteTopicsKey                int16 = 20
	initProducerIDKey              int16 = 22
	offsetForLeaderEpochKey        int16 = 23
	describeConfigsKey             int16 = 32
	createPartitionsKey            int16 = 37
	incrementalAlterConfigsKey     int16 = 44
	electLeadersKey                int16 = 43
	alterPartitionReassignmentsKey int16 = 45
	listPartitionReassignmentsKey  int16 = 46

	offsetCommitKey    int16 = 8
	offsetFetchKey     int16 = 9
	findCoordinatorKey int16 = 10
	joinGroupKey       int16 = 11
	heartbeatKey       int16 = 12
	leaveGroupKey      int16 = 13
	syncGroupKey       int16 = 14
	describeGroupsKey  int16 = 15
	listGroupsKey      int16 = 16
	deleteGroupsKey    int16 = 42
	offsetDeleteKey    int16 = 47
)

// api is one API the listener serves: the versions it advertises, how a
// request becomes the broker's wire request, and how the broker's answer
// becomes the Kafka response. One file per API (NN_name.go) registers it.
type api struct {
	key      int16
	name     string
	min, max int16
	// decode turns the decoded Kafka request (st.kreq) into the broker's
	// request, or sets st.local and returns errLocal for an answer the
	// codec gives itself.
	decode func(c *Codec, st *request, r *server.Request) (wire.Message, error)
	// encode turns the broker's answer into the Kafka response.
	encode func(c *Codec, st *request, m wire.Message) (kmsg.Response, error)
	// shape is the request body's layout at a version, which
	// checkCounts walks before kmsg decodes it.
	shape func(version int16, flexible bool) shape
}

// apis is the listener's table, sorted by key: ApiVersions advertises it.
var apis []*api

// regKey registers an API (each NN_name.go's init).
func regKey(a *api) {
	if a.shape == nil {
		// Every request is walked by its shape before kmsg decodes it:
		// an API without one would be decoded unbounded.
		panic("kafka: API " + a.name + " registered without a request shape")
	}
	apis = append(apis, a)
	slices.SortFunc(apis, func(x, y *api) int { return int(x.key) - int(y.key) })
}

// apiFor returns the API of key, or nil.
func apiFor(key int16) *api {
	for _, a := range apis {
		if a.key == key {
			return a
		}
	}
	return nil
}
