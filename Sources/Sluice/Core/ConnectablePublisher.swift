/// A publisher that provides an explicit means of connecting and cancelling publication.
///
/// Use a connectable publisher when you need to perform additional configuration or setup prior
/// to producing any elements: it does nothing until its ``connect()`` is called, or until a
/// subscriber arrives after ``autoconnect()``.
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Connects to the publisher, allowing it to produce elements, and returns an instance with
    /// which to cancel publishing.
    func connect() -> Cancellable
}
