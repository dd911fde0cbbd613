package plugin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSON-RPC 2.0, one object per line, lock-step (docs/protocol.md §2).

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// The JSON-RPC codes of docs/protocol.md §8.
const (
	codeParse          = -32700
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// wireError is an error answered to the simulator with its JSON-RPC code.
type wireError struct {
	code int
	msg  string
}

func (e *wireError) Error() string { return e.msg }

func invalidParams(format string, args ...any) error {
	return &wireError{codeInvalidParams, fmt.Sprintf(format, args...)}
}

type conn struct {
	in  *bufio.Reader
	out *bufio.Writer
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{in: bufio.NewReaderSize(r, 1<<16), out: bufio.NewWriterSize(w, 1<<16)}
}

// read returns the next line (of any length) without its end, io.EOF at the end of input.
func (c *conn) read() ([]byte, error) {
	line, err := c.in.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) > 0 {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	return line, nil
}

func (c *conn) reply(id json.RawMessage, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return c.write(id, "result", b)
}

func (c *conn) replyError(id json.RawMessage, code int, msg string) error {
	b, err := json.Marshal(rpcError{Code: code, Message: msg})
	if err != nil {
		return err
	}
	return c.write(id, "error", b)
}

func (c *conn) write(id json.RawMessage, member string, body []byte) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	c.out.WriteString(`{"jsonrpc":"2.0","id":`)
	c.out.Write(id)
	c.out.WriteString(`,"` + member + `":`)
	c.out.Write(body)
	c.out.WriteString("}\n")
	return c.out.Flush()
}
