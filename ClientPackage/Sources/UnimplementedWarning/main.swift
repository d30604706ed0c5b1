// A program that does not link SluiceTesting: an unimplemented scheduler that is used warns on
// standard error and still runs the action (SchedulerStyleTests launches it and reads what it
// wrote; the test process itself links SluiceTesting through other test targets).
import Foundation
import SluiceSchedulers

var ran = false
DispatchQueue.unimplemented("Feed").schedule { ran = true }
print(ran ? "the action ran" : "the action did not run")
