// SluiceRx: RxSwift's spellings (Observable, subscribe(onNext:…), DisposeBag, observe(on:),
// MainScheduler, Hooks, toBlocking) as a thin layer over Sluice's engine. Every operator and
// scheduler here is a Sluice operator or scheduler under its RxSwift name; the few pieces that
// Sluice has no counterpart for (Observable.create, `do` with its after-hooks, the
// current-thread trampoline, share's `.whileConnected` scope) are small and say so.
//
// `import SluiceRx` stands in for `import RxSwift`, `import RxCocoa` (bind, Binder),
// `import RxRelay` and `import RxBlocking`; RxTest's TestScheduler is in `SluiceRxTest`.
