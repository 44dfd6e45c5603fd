import HeraldModel

extension ClientEventLoop {
    /// Gives a new request a slot and hands it to its origin's pool.
    func admit(_ request: PendingRequest) {
        if request.cancellation?.isCancelled.load(ordering: .acquiring) == true {
            return reject(request, HTTPClientError(code: .cancelled, message: "request cancelled"))
        }
        if request.deadline <= now {
            return reject(request, HTTPClientError(code: .timeout, message: "request timed out"))
        }
        let pool = poolIndex(for: request)
        let index: Int
        if let free = popFreeSlot() {
            index = free
        } else {
            slots.append(RequestSlot())
            index = slots.count - 1
        }
        slots[index].pending = request
        slots[index].pool = pool
        let id = RequestSlot.id(index: index, generation: slots[index].generation)
        request.cancellation?.requestID = id
        withPool(pool) { pool, actions in
            pool.enqueue(id, deadline: request.deadline, now: now, into: &actions)
        }
    }

    /// The pool of the request's origin, made on first use. Pools are kept for the client's life: a client talks
    /// to a handful of origins.
    private func poolIndex(for request: PendingRequest) -> Int {
        request.request.url.withBorrowedUTF8 { bytes in
            for index in pools.indices where pools[index].origin.matches(request.target, in: bytes) {
                return index
            }
            let origin = Origin(request.target, in: bytes)
            addPool(origin)
            return pools.count - 1
        }
    }

    /// Cancels the request a cancelled task was waiting for, wherever it is.
    func cancel(linkedTo cancellation: RequestCancellation) {
        guard let id = cancellation.requestID, isActive(id) else { return }
        let pool = slots[RequestSlot.index(of: id)].pool
        withPool(pool) { pool, actions in
            pool.cancel(
                id, with: HTTPClientError(code: .cancelled, message: "request cancelled"), now: now, into: &actions)
        }
    }

    /// Whether `id` names the current request of its slot.
    func isActive(_ id: RequestID) -> Bool {
        let index = RequestSlot.index(of: id)
        return index < slots.count && slots[index].generation == RequestSlot.generation(of: id)
            && slots[index].pending != nil
    }

    /// Completes a request whose response is complete.
    func succeed(_ id: RequestID) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        let response = HTTPClientResponse(
            status: slots[index].status, fields: slots[index].headers, body: slots[index].body)
        finish(id, .success(response))
    }

    /// Frees the request's slot and calls its completion.
    func finish(_ id: RequestID, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        let request = slots[index].pending!
        slots[index].pending = nil
        slots[index].generation = slots[index].generation == Int(UInt32.max) ? 1 : slots[index].generation + 1
        slots[index].resetResponse()
        freeSlot(index)
        request.cancellation?.requestID = nil
        pending.value.subtract(1, ordering: .relaxed)
        request.completion(result)
    }

    /// Completes a request that never got a slot.
    func reject(_ request: PendingRequest, _ error: HTTPClientError) {
        pending.value.subtract(1, ordering: .relaxed)
        request.completion(.failure(error))
    }

    // MARK: Upload and response, for the connections

    /// Copies the next body bytes of request `id` to `buffer`: their count, and whether the body is done.
    func readBody(_ id: RequestID, into buffer: UnsafeMutableRawPointer, capacity: Int) -> (count: Int, done: Bool)? {
        guard isActive(id) else { return nil }
        let index = RequestSlot.index(of: id)
        let offset = slots[index].uploaded
        let count = slots[index].pending!.request.body.withUnsafeBytes { body -> Int in
            let count = min(capacity, body.count - offset)
            if count > 0 { buffer.copyMemory(from: body.baseAddress! + offset, byteCount: count) }
            return count
        }
        slots[index].uploaded = offset + count
        return (count, offset + count == slots[index].pending!.request.body.count)
    }

    /// A response header block begins on request `id`'s stream.
    func responseHeadersBegin(_ id: RequestID) {
        guard isActive(id) else { return }
        slots[RequestSlot.index(of: id)].interim = false
    }

    /// A response header field of request `id` (`:status` included; trailers and interim responses dropped).
    func responseHeader(_ id: RequestID, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        guard !slots[index].headersDone, !slots[index].refused else { return }
        if name.count == 7 && name.elementsEqual(":status".utf8) {
            // nghttp2 lets through three digits, 101 excepted.
            var status = 0
            for byte in value where byte &- UInt8(ascii: "0") < 10 { status = status * 10 + Int(byte &- 48) }
            guard HTTPClientResponse.validStatuses.contains(status) else {
                return refuse(id, HTTPClientError(code: .connectionReset, message: "HTTP/2: invalid :status \(status)"))
            }
            if (100..<200).contains(status) {
                slots[index].interim = true  // 1xx: its headers are not the response's
            } else {
                slots[index].status = status
            }
            return
        }
        guard !slots[index].interim, name.first != UInt8(ascii: ":") else { return }
        // Room for a usual response's fields at once.
        if slots[index].headers.isEmpty { slots[index].headers.reserve(256) }
        slots[index].headers.append(name: name, value: value)
    }

    /// A response header block of request `id` ended; `endsStream`: nothing follows it.
    func responseHeadersEnd(_ id: RequestID, endsStream: Bool) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        if slots[index].status != 0 && !slots[index].interim { slots[index].headersDone = true }
        if endsStream && slots[index].headersDone { slots[index].complete = true }
    }

    /// Response body bytes of request `id`; beyond the size limit the request fails and its stream is reset.
    func responseBody(_ id: RequestID, _ bytes: UnsafeRawBufferPointer) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        guard !slots[index].refused else { return }
        guard slots[index].body.count + bytes.count <= configuration.maxResponseBodySize else {
            return refuse(
                id,
                HTTPClientError(
                    code: .other, message: "response body larger than \(configuration.maxResponseBodySize) bytes"))
        }
        slots[index].body.append(contentsOf: bytes)
    }

    /// Fails request `id` with `error` and resets its stream: its response is not one to hand over. What else
    /// arrives for it is dropped.
    private func refuse(_ id: RequestID, _ error: HTTPClientError) {
        let index = RequestSlot.index(of: id)
        guard !slots[index].refused else { return }
        slots[index].refused = true
        withPool(slots[index].pool) { pool, actions in pool.cancel(id, with: error, now: now, into: &actions) }
    }

    /// The response of request `id` ended with its last DATA frame.
    func responseEnded(_ id: RequestID) {
        guard isActive(id) else { return }
        let index = RequestSlot.index(of: id)
        if slots[index].headersDone && !slots[index].refused { slots[index].complete = true }
    }

    /// Whether request `id`'s response is complete.
    func isComplete(_ id: RequestID) -> Bool {
        isActive(id) && slots[RequestSlot.index(of: id)].complete
    }
}
