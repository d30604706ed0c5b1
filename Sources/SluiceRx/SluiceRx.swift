import Sluice
