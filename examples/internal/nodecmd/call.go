package nodecmd

import (
	"bufio"
	"fmt"
	"net"
	"time"

	"github.com/kaenlog/kaenlog/wire"
)

// CallTimeout is the cluster command's bound on one request.
const CallTimeout = 10 * time.Second

// Call sends req to addr on a connection of its own and returns the
// response, decoded as the answer to req's API, all within timeout: how the
// cluster command, the fault test and the benchmark harness ask the
// controller and brokers.
func Call(addr string, req wire.Message, timeout time.Duration) (wire.Message, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
	payload, err := req.AppendTo(nil)
	if err != nil {
		return nil, err
	}
	frame, err := wire.AppendFrame(nil, payload)
	if err != nil {
		return nil, err
	}
	if _, err := nc.Write(frame); err != nil {
		return nil, err
	}
	resp, err := wire.ReadFrame(bufio.NewReader(nc), nil, 0)
	if err != nil {
		return nil, err
	}
	m, err := wire.DecodeResponse(resp)
	if err != nil {
		return nil, err
	}
	if m.APIKey() != req.APIKey() || m.Correlation() != req.Correlation() {
		return nil, fmt.Errorf("a %v response %d to a %v request %d", m.APIKey(), m.Correlation(), req.APIKey(), req.Correlation())
	}
	return m, nil
}
