/// A publisher that allows for recording a series of inputs and a completion, for later playback
/// to each subscriber.
///
/// Playback honours demand and sends the completion right after the last value, without waiting
/// for more demand. A recording with no output hands the subscriber the empty subscription and
/// completes at once. The subscription is described by the output array (`"[1, 2, 3]"`) while it
/// plays, and as `"Cancelled Events"` once it has completed or been cancelled, as in Combine.
public struct Record<Output, Failure: Error>: Publisher {
    /// The recorded output and completion.
    public let recording: Recording

    /// Creates a publisher to interactively record a series of outputs and a completion.
    ///
    /// `record` runs at once, inside this initializer. If it does not record a completion, the
    /// completion is `.finished`, and the stored recording stays open: a copy of it still accepts
    /// values and a completion.
    @inlinable
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a record publisher from an existing recording.
    @inlinable
    public init(recording: Recording) {
        self.recording = recording
    }

    /// Creates a record publisher to publish the provided elements, followed by the provided
    /// completion value.
    @inlinable
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        self.init(recording: Recording(output: output, completion: completion))
    }

    /// Plays the recording back to the subscriber as it requests values, then sends the recorded
    /// completion.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        let output = recording.output
        var iterator = output.makeIterator()
        guard let first = iterator.next() else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: recording.completion)
            return
        }
        // The same playback as `Publishers.Sequence`, with the recorded completion at the end.
        subscriber.receive(subscription: SequenceSubscription<S, [Output]>(
            downstream: subscriber, sequence: output, iterator: iterator, next: first,
            completion: recording.completion, presentation: .record))
    }
}

extension Record {
    /// A recorded sequence of outputs, followed by a completion value.
    public struct Recording {
        /// The type of value the recording receives.
        public typealias Input = Output

        /// The output which will be sent to a subscriber.
        public private(set) var output: [Output]

        /// The completion which will be sent to a subscriber.
        public private(set) var completion: Subscribers.Completion<Failure>

        /// Whether a completion has been recorded; a complete recording traps on further input.
        @usableFromInline
        internal var isComplete: Bool

        /// Sets up a recording in a state ready to receive output.
        public init() {
            output = []
            completion = .finished
            isComplete = false
        }

        /// Sets up a complete recording with the specified output and completion.
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            self.output = output
            self.completion = completion
            isComplete = true
        }

        /// Adds an output to the recording.
        ///
        /// Adding output after a completion stops the program, as in Combine.
        public mutating func receive(_ input: Input) {
            precondition(!isComplete, "Record.Recording received a value after its completion")
            output.append(input)
        }

        /// Adds a completion to the recording.
        ///
        /// Adding a second completion stops the program, as in Combine.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(!isComplete, "Record.Recording received a second completion")
            self.completion = completion
            isComplete = true
        }
    }
}

/// Combine's coding keys for a recording, in encoding order.
private enum RecordingCodingKeys: String, CodingKey {
    case output
    case completion
}

/// Combine's coding key for a record.
private enum RecordCodingKeys: String, CodingKey {
    case recording
}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    /// Decodes a recording; both `output` and `completion` are required, and the decoded
    /// recording is complete (further input traps).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: RecordingCodingKeys.self)
        output = try container.decode([Output].self, forKey: .output)
        completion = try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion)
        isComplete = true
    }

    /// Encodes the recording as `{"output": [...], "completion": {...}}`; the same as
    /// ``encode(to:)``.
    public func encode(into encoder: Encoder) throws {
        var container = encoder.container(keyedBy: RecordingCodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }

    /// Encodes the recording as `{"output": [...], "completion": {...}}`.
    public func encode(to encoder: Encoder) throws {
        try encode(into: encoder)
    }
}

extension Record: Codable where Output: Codable, Failure: Codable {
    /// Decodes a record from `{"recording": {...}}`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: RecordCodingKeys.self)
        self.init(recording: try container.decode(Recording.self, forKey: .recording))
    }

    /// Encodes the record as `{"recording": {"output": [...], "completion": {...}}}`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: RecordCodingKeys.self)
        try container.encode(recording, forKey: .recording)
    }
}
