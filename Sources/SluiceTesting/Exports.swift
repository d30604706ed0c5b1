// Tests keep one import: SluiceTesting brings the schedulers they drive (`DispatchQueue.test`,
// `TestScheduler`, `UnimplementedScheduler`) with it.
@_exported import SluiceSchedulers
